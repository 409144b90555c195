break fizzbuzz.coc:85 if i == 3
run
info coroutines
coro bt $coro("writer")
coro frame $coro("consume")
coro frame $coro("writer", 1)
kill
