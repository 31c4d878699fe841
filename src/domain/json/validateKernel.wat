;; The scanner's validating mode (validate.ts) as WebAssembly: whether bytes are JSON
;; exactly as JSON.parse decides, 16 bytes at a time inside strings. A module of its own so
;; that only the transcript index carries it (the local scanners' worker bundle does not);
;; it reads the bytes loaded into skimKernel.wat's memory, which it imports, at the same
;; `offset=131072`, and keeps its state at 61,424 there (see below).
;;
;; Compiled by `npm run build:wasm` into validateKernelWasm.ts (a unit test checks the two
;; agree); loaded by validate.ts.
(module
  (import "kernel" "memory" (memory 1))

  (func $is_ws (param $c i32) (result i32)
    (i32.or
      (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 10)))
      (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 9)))))

  ;; The byte at $j, or -1 at or past $end.
  (func $at (param $j i32) (param $end i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $j) (local.get $end))
      (then (i32.load8_u offset=131072 (local.get $j)))
      (else (i32.const -1))))

  ;; Validation runs line by line and carries its state from one call to the next, so a
  ;; value pretty-printed over many lines is checked as one; a string cannot span lines (a raw newline in a string is not JSON). The caller passes
  ;; the state and depth in and reads them back, with the error, from four i32 at 61,424
  ;; (error code, its index, state, depth); the container of each open depth (0 object,
  ;; 1 array) is a byte at 61,456 + depth.

  ;; Index just past the closing quote of the string opening at $i; -1 unterminated, -2 a
  ;; control character, -3 an invalid escape. As $string_end, 16 bytes at a time.
  (func $valid_string_end (param $i i32) (param $end i32) (result i32)
    (local $j i32) (local $m i32) (local $c i32) (local $e i32) (local $v v128)
    (local.set $j (i32.add (local.get $i) (i32.const 1)))
    (block $fail
      (loop $scan
        (if (i32.le_u (i32.add (local.get $j) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load offset=131072 (local.get $j)))
            (local.set $m (i8x16.bitmask (v128.or (v128.or
              (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
              (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))
              (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))))
            (if (i32.eqz (local.get $m))
              (then (local.set $j (i32.add (local.get $j) (i32.const 16))) (br $scan)))
            (local.set $j (i32.add (local.get $j) (i32.ctz (local.get $m)))))
          (else (br_if $fail (i32.ge_u (local.get $j) (local.get $end)))))
        (local.set $c (i32.load8_u offset=131072 (local.get $j)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then (return (i32.add (local.get $j) (i32.const 1)))))
        (if (i32.lt_u (local.get $c) (i32.const 32)) (then (return (i32.const -2))))
        (if (i32.ne (local.get $c) (i32.const 92))
          (then (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $scan)))
        ;; A backslash: `\u` and four hex digits, or one of " \ / b f n r t.
        (br_if $fail (i32.ge_u (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
        (local.set $e (i32.load8_u offset=131073 (local.get $j)))
        (if (i32.eq (local.get $e) (i32.const 117))
          (then
            (br_if $fail (i32.ge_u (i32.add (local.get $j) (i32.const 5)) (local.get $end)))
            (if (i32.eqz (i32.and
                  (i32.and (call $is_hex (i32.load8_u offset=131074 (local.get $j)))
                    (call $is_hex (i32.load8_u offset=131075 (local.get $j))))
                  (i32.and (call $is_hex (i32.load8_u offset=131076 (local.get $j)))
                    (call $is_hex (i32.load8_u offset=131077 (local.get $j))))))
              (then (return (i32.const -3))))
            (local.set $j (i32.add (local.get $j) (i32.const 6)))
            (br $scan)))
        (if (i32.or
              (i32.or
                (i32.or (i32.eq (local.get $e) (i32.const 34)) (i32.eq (local.get $e) (i32.const 92)))
                (i32.or (i32.eq (local.get $e) (i32.const 47)) (i32.eq (local.get $e) (i32.const 98))))
              (i32.or
                (i32.or (i32.eq (local.get $e) (i32.const 102)) (i32.eq (local.get $e) (i32.const 110)))
                (i32.or (i32.eq (local.get $e) (i32.const 114)) (i32.eq (local.get $e) (i32.const 116)))))
          (then (local.set $j (i32.add (local.get $j) (i32.const 2))) (br $scan)))
        (return (i32.const -3))))
    (i32.const -1))

  (func $is_hex (param $c i32) (result i32)
    (i32.or
      (i32.le_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 9))
      (i32.le_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 5))))

  (func $is_digit (param $c i32) (result i32)
    (i32.le_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 9)))

  ;; Index just past the number starting at $i (JSON's grammar), or -1.
  (func $number_end (param $i i32) (param $end i32) (result i32)
    (local $j i32)
    (local.set $j (local.get $i))
    (if (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 45))
      (then (local.set $j (i32.add (local.get $j) (i32.const 1)))))
    (if (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 48))
      (then (local.set $j (i32.add (local.get $j) (i32.const 1))))
      (else
        (if (i32.eqz (call $is_digit (call $at (local.get $j) (local.get $end))))
          (then (return (i32.const -1))))
        (local.set $j (call $digits_end (local.get $j) (local.get $end)))))
    (if (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 46))
      (then
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.eqz (call $is_digit (call $at (local.get $j) (local.get $end))))
          (then (return (i32.const -1))))
        (local.set $j (call $digits_end (local.get $j) (local.get $end)))))
    (if (i32.eq (i32.or (call $at (local.get $j) (local.get $end)) (i32.const 32)) (i32.const 101))
      (then
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.or (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 43))
              (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 45)))
          (then (local.set $j (i32.add (local.get $j) (i32.const 1)))))
        (if (i32.eqz (call $is_digit (call $at (local.get $j) (local.get $end))))
          (then (return (i32.const -1))))
        (local.set $j (call $digits_end (local.get $j) (local.get $end)))))
    (local.get $j))

  (func $digits_end (param $j i32) (param $end i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $is_digit (call $at (local.get $j) (local.get $end)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (local.get $j))

  ;; Index just past `true`, `false` or `null` at $i (its first byte already matched), or -1.
  (func $literal_end (param $i i32) (param $end i32) (param $c i32) (result i32)
    (if (i32.eq (local.get $c) (i32.const 102))
      (then
        (if (i32.and (i32.le_u (i32.add (local.get $i) (i32.const 5)) (local.get $end))
              (i32.eq (i32.load offset=131073 (local.get $i)) (i32.const 0x65736c61)))
          (then (return (i32.add (local.get $i) (i32.const 5)))))
        (return (i32.const -1))))
    (if (i32.and (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $end))
          (i32.eq (i32.load offset=131072 (local.get $i))
            (select (i32.const 0x65757274) (i32.const 0x6c6c756e)
              (i32.eq (local.get $c) (i32.const 116)))))
      (then (return (i32.add (local.get $i) (i32.const 4)))))
    (i32.const -1))

  ;; Stops with error $code at $i: returns 2 (error) with the state left as it was.
  (func $invalid (param $code i32) (param $i i32) (param $state i32) (param $depth i32)
    (result i32)
    (i32.store offset=61424 (i32.const 0) (local.get $code))
    (i32.store offset=61428 (i32.const 0) (local.get $i))
    (i32.store offset=61432 (i32.const 0) (local.get $state))
    (i32.store offset=61436 (i32.const 0) (local.get $depth))
    (i32.const 2))

  ;; Checks [$start, $end) continuing from $state and $depth (see validate.ts for both).
  ;; Returns 0 (the value goes on after $end), 1 (it is complete and valid) or 2 (not
  ;; JSON; the error code and index in the header).
  (func $validate (export "validate") (param $start i32) (param $end i32) (param $state i32)
    (param $depth i32) (result i32)
    (local $i i32) (local $c i32) (local $q i32) (local $cont i32)
    (local.set $i (local.get $start))
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $c (i32.load8_u offset=131072 (local.get $i)))
        (if (call $is_ws (local.get $c))
          (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $next)))
        ;; 5: after a value in a container: ',' or the closing bracket.
        (if (i32.eq (local.get $state) (i32.const 5))
          (then
            (local.set $cont (i32.load8_u offset=61456 (local.get $depth)))
            (if (i32.eq (local.get $c) (i32.const 44))
              (then
                (local.set $state (select (i32.const 0) (i32.const 3) (local.get $cont)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))
            (if (i32.or
                  (i32.and (i32.eq (local.get $c) (i32.const 125)) (i32.eqz (local.get $cont)))
                  (i32.and (i32.eq (local.get $c) (i32.const 93)) (local.get $cont)))
              (then
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $state (select (i32.const 5) (i32.const 6) (local.get $depth)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))
            (return (call $invalid (i32.const 4) (local.get $i) (local.get $state) (local.get $depth)))))
        ;; 2: after '{'; 3: after ',' in an object: a key (or, after '{', the end).
        (if (i32.or (i32.eq (local.get $state) (i32.const 2)) (i32.eq (local.get $state) (i32.const 3)))
          (then
            (if (i32.eq (local.get $c) (i32.const 34))
              (then
                (local.set $q (call $valid_string_end (local.get $i) (local.get $end)))
                (if (i32.lt_s (local.get $q) (i32.const 0))
                  (then (return (call $invalid (i32.sub (i32.const 0) (local.get $q))
                    (local.get $i) (local.get $state) (local.get $depth)))))
                (local.set $i (local.get $q))
                (local.set $state (i32.const 4))
                (br $next)))
            (if (i32.and (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $state) (i32.const 2)))
              (then
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $state (select (i32.const 5) (i32.const 6) (local.get $depth)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))
            (return (call $invalid (i32.const 5) (local.get $i) (local.get $state) (local.get $depth)))))
        ;; 4: after a key.
        (if (i32.eq (local.get $state) (i32.const 4))
          (then
            (if (i32.ne (local.get $c) (i32.const 58))
              (then (return (call $invalid (i32.const 6) (local.get $i) (local.get $state) (local.get $depth)))))
            (local.set $state (i32.const 0))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        ;; 6: the top-level value is complete: nothing may follow.
        (if (i32.eq (local.get $state) (i32.const 6))
          (then (return (call $invalid (i32.const 7) (local.get $i) (local.get $state) (local.get $depth)))))
        ;; 0 or 1 (after '['): a value starts here (or, after '[', the end).
        (if (i32.and (i32.eq (local.get $c) (i32.const 93)) (i32.eq (local.get $state) (i32.const 1)))
          (then
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $state (select (i32.const 5) (i32.const 6) (local.get $depth)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
          (then
            (if (i32.ge_u (local.get $depth) (i32.const 1000))
              (then (return (call $invalid (i32.const 8) (local.get $i) (local.get $state) (local.get $depth)))))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (local.set $cont (i32.eq (local.get $c) (i32.const 91)))
            (i32.store8 offset=61456 (local.get $depth) (local.get $cont))
            (local.set $state (select (i32.const 1) (i32.const 2) (local.get $cont)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (local.set $q (call $valid_string_end (local.get $i) (local.get $end)))
            (if (i32.lt_s (local.get $q) (i32.const 0))
              (then (return (call $invalid (i32.sub (i32.const 0) (local.get $q))
                (local.get $i) (local.get $state) (local.get $depth)))))
            (local.set $i (local.get $q)))
          (else
            (if (i32.or (i32.eq (local.get $c) (i32.const 45)) (call $is_digit (local.get $c)))
              (then
                (local.set $q (call $number_end (local.get $i) (local.get $end)))
                (if (i32.lt_s (local.get $q) (i32.const 0))
                  (then (return (call $invalid (i32.const 10) (local.get $i) (local.get $state) (local.get $depth))))))
              (else
                (if (i32.or (i32.eq (local.get $c) (i32.const 116))
                      (i32.or (i32.eq (local.get $c) (i32.const 102)) (i32.eq (local.get $c) (i32.const 110))))
                  (then
                    (local.set $q (call $literal_end (local.get $i) (local.get $end) (local.get $c)))
                    (if (i32.lt_s (local.get $q) (i32.const 0))
                      (then (return (call $invalid (i32.const 11) (local.get $i) (local.get $state) (local.get $depth))))))
                  (else
                    (return (call $invalid (i32.const 9) (local.get $i) (local.get $state) (local.get $depth)))))))
            (local.set $i (local.get $q))))
        (local.set $state (select (i32.const 5) (i32.const 6) (local.get $depth)))
        (br $next)))
    (i32.store offset=61432 (i32.const 0) (local.get $state))
    (i32.store offset=61436 (i32.const 0) (local.get $depth))
    (i32.eq (local.get $state) (i32.const 6)))
)
