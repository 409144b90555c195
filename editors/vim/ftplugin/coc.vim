" ftplugin/coc.vim: a .coc buffer takes C's settings (comments,
" commentstring, formatoptions, the include and define patterns, ...).
" C's ftplugin sets b:did_ftplugin itself, and undoes its settings through
" b:undo_ftplugin when the filetype changes.
if exists("b:did_ftplugin")
  finish
endif

runtime! ftplugin/c.vim ftplugin/c_*.vim ftplugin/c/*.vim
