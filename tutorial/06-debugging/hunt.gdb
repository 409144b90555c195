break runs.coc:19
run
print r
print coro_f->r
backtrace
continue
print r
break runs.coc:23
continue
print r
print text
set coro-names off
print coro_f->r
continue
