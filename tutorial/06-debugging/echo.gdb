break echo.coc:81
run --self-test 1 5 1
info coroutines
coro bt $coro("round_trip")
coro bt $coro("write_all")
coro frame $coro("round_trip")
kill
