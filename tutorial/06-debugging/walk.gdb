break runs.coc:19
run
next
delete
break coro_resume_runs
continue
print coro_c->resume_point
next
next
