" ftdetect/coc.vim: a .coc file is coroc's C with coroutines (filetype "coc").
" Vim and Neovim source every ftdetect/*.vim of the runtimepath when filetype
" detection starts: put editors/vim (or PREFIX/share/coroc/editors/vim) on it.
autocmd BufRead,BufNewFile *.coc setfiletype coc
