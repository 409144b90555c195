" indent/coc.vim: a .coc buffer is indented as C is (cindent): the three
" words of coroc take no indentation of their own.
if exists("b:did_indent")
  finish
endif

runtime! indent/c.vim
