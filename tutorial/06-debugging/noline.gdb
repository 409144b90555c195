break runs.coc:19
break coro_resume_runs
run
next
next
