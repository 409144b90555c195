break coro_body_write_all
run --self-test 1 5 1
info coroutines
coro bt $coro("client_connection")
bt 3
kill
