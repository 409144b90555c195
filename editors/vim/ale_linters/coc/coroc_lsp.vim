" coroc-lsp, the language server for .coc files, as an ALE linter (docs/editors.md, "Vim").
" ALE (Debian: vim-ale) reads ale_linters/FILETYPE/NAME.vim from the runtimepath for a
" buffer of that filetype: this file, for the filetype coc (ftdetect/coc.vim).
" g:ale_coc_coroc_lsp_executable names another coroc-lsp than the one in PATH.
call ale#Set('coc_coroc_lsp_executable', 'coroc-lsp')

" The workspace's root, where coroc-lsp looks for compile_commands.json (in the root or
" in its build/): the nearest directory above the file that holds compile_commands.json,
" else the one that holds .git, else the file's own.
function! ale_linters#coc#coroc_lsp#ProjectRoot(buffer) abort
    let l:db = ale#path#FindNearestFile(a:buffer, 'compile_commands.json')
    if !empty(l:db)
        return fnamemodify(l:db, ':h')
    endif
    let l:git = ale#path#FindNearestDirectory(a:buffer, '.git')
    if !empty(l:git)
        return fnamemodify(l:git, ':h:h')
    endif
    return fnamemodify(bufname(a:buffer), ':p:h')
endfunction

call ale#linter#Define('coc', {
\   'name': 'coroc-lsp',
\   'lsp': 'stdio',
\   'executable': {buffer -> ale#Var(buffer, 'coc_coroc_lsp_executable')},
\   'command': '%e',
\   'project_root': function('ale_linters#coc#coroc_lsp#ProjectRoot'),
\})
