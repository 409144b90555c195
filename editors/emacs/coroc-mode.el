;;; coroc-mode.el --- coroc's .coc files: C with coroutines  -*- lexical-binding: t; -*-

;; A .coc file is C with three more words (docs/language.md in coroc's
;; source): `coroutine' among a function's declaration specifiers, the
;; statement `yield', the prefix operator `await'.  This mode is C mode
;; (indentation, motion, comments, syntax) plus those words in font-lock.
;;
;; Install: put this file on `load-path', then in your init file
;;
;;   (require 'coroc-mode)
;;
;; which opens every .coc in `coroc-mode'.  With eglot, `M-x eglot' in a .coc
;; buffer starts coroc's language server, coroc-lsp (found on PATH): this file
;; tells eglot about it once eglot is loaded.

;;; Code:

(require 'cc-mode)

(defconst coroc-mode-words '("coroutine" "yield" "await")
  "The words .coc adds to C.")

(defconst coroc-mode--word-regexp (regexp-opt coroc-mode-words 'symbols)
  "A whole word of `coroc-mode-words': not a part of `yielded' or `awaiting'.")

(defun coroc-mode--match-word (limit)
  "Find the next of `coroc-mode-words' before LIMIT that stands in code.
The keyword face is applied over any face C mode gave the word (it reads
noise macros as it likes), so this matcher is what keeps comments and
strings out."
  (let (found)
    (while (and (not found) (re-search-forward coroc-mode--word-regexp limit t))
      (setq found (not (nth 8 (save-excursion (syntax-ppss (match-beginning 0)))))))
    found))

;;;###autoload
(define-derived-mode coroc-mode c-mode "coroc"
  "Major mode for coroc's .coc files: C mode, and coroutine, yield, await."
  ;; To C mode's reading of declarations, each word is noise, as a macro that
  ;; expands to nothing would be: `yield a;' is then no declaration of `a',
  ;; `await f(x);' no prototype of `f', `coroutine int f(void)' a definition.
  (setq c-noise-macro-names (append coroc-mode-words c-noise-macro-names))
  (c-make-noise-macro-regexps)
  (font-lock-add-keywords nil '((coroc-mode--match-word 0 font-lock-keyword-face t)) 'append))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.coc\\'" . coroc-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(coroc-mode "coroc-lsp")))

(provide 'coroc-mode)
;;; coroc-mode.el ends here
