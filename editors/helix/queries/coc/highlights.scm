; Helix: .coc is parsed with tree-sitter's C grammar, where coroutine, yield
; and await are names (an identifier, or a type's name where a declaration
; seems to start). These patterns come first, ahead of C's, which the
; inherits line brings in.
((identifier) @keyword.control
  (#any-of? @keyword.control "yield" "await"))
((type_identifier) @keyword.control
  (#any-of? @keyword.control "yield" "await"))
([(identifier) (type_identifier)] @keyword.storage.modifier
  (#eq? @keyword.storage.modifier "coroutine"))

; inherits: c
