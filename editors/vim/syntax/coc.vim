" syntax/coc.vim: coroc's .coc files, C with three more words
" (docs/language.md): `coroutine` among a function's declaration specifiers,
" `yield` as a statement, `await` as a unary operator.
"
" The C syntax does all the rest. The three words are keywords outside any
" region, so C's code regions (blocks, parentheses, #define bodies: contains=
" ALLBUT,...) take them in, and comments and strings, which name what they
" contain, do not. The groups link to the standard ones every colour scheme
" colours.
if exists("b:current_syntax")
  finish
endif

runtime! syntax/c.vim
unlet! b:current_syntax

syntax keyword cocCoroutine coroutine
syntax keyword cocYield yield
syntax keyword cocAwait await

" `coroutine` stands where `static` and `inline` do: a storage class.
highlight default link cocCoroutine StorageClass
" `yield` suspends, as `return` leaves: a statement.
highlight default link cocYield Statement
" `await` is a prefix operator, as `sizeof` is (C's syntax calls that Operator).
highlight default link cocAwait Operator

let b:current_syntax = "coc"
