break runs.coc:19
run
print r
print coro_f->r
backtrace
continue
print coro_f->r
break runs.coc:23
continue
print coro_f->r
print coro_f->text
continue
