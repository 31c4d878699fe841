;; The structural skim of skim.ts as WebAssembly: these loops look at 16 bytes at a time
;; inside strings (128-bit SIMD), which is where most transcript bytes are, where
;; JavaScript reads a Buffer byte by byte.
;; Same contract as the JS functions they stand in for (skimAt, valueEnd, arrayEnd):
;; indexes are into the loaded bytes, -1 means malformed or not ended before `end`.
;;
;; Memory: [0, 48 KiB) holds results (four i32 per object field: key start, key end
;; inside the quotes, value start, value end; two per array element), [48 KiB, 49 KiB)
;; the names of the fields to descend into, then a header of six i32 (count, open,
;; nested_count, nested_open, element_count, surrogate), the counts read in the walk (a
;; state i32 at 49,688, eight f64 from 49,696), the answer of a key check (an i32 at
;; 49,692; see $check_key) and the names both use (lengths at 49,760, twelve names of up
;; to 64 bytes from 49,808); [64 KiB, 96 KiB) the fields of the array elements that are
;; objects, and [96 KiB, 112 KiB) per element where its
;; fields start there and how many there are (-1: not an object); [112 KiB, 128 KiB) the
;; fields of an object skimmed without descending (a value inside a line); [60 KiB, 61 KiB)
;; the validation state (validateKernel.wat, which shares this memory). The bytes being
;; skimmed are loaded at 128 KiB, hence `offset=131072` on every load of them.
;;
;; Compiled by `npm run build:wasm` into skimKernelWasm.ts (a unit test checks the two
;; agree); loaded by skimKernel.ts.
(module
  (memory (export "memory") 3)

  ;; What the last skim found (see $skim); copied to the header at 48.5 KiB for the
  ;; caller, which reads memory much faster than it reads globals.
  (global $count (mut i32) (i32.const 0))
  (global $open (mut i32) (i32.const 0))
  (global $nested_count (mut i32) (i32.const -1))
  (global $nested_open (mut i32) (i32.const 0))
  (global $element_count (mut i32) (i32.const -1))
  ;; Fields of the last element object skimmed (level 3 of $fields).
  (global $element_fields (mut i32) (i32.const 0))
  ;; Whether the counts reading met its inner object (see $counts).
  (global $counts_inner (mut i32) (i32.const 0))
  ;; Lengths of the names to descend into, stored at 48 KiB (key0) and 48.25 KiB (key1).
  (global $key0_len (export "key0_len") (mut i32) (i32.const 0))
  (global $key1_len (export "key1_len") (mut i32) (i32.const 0))

  ;; Index just past the closing quote of the string whose opening quote is at $i.
  (func $string_end (export "string_end") (param $i i32) (param $end i32) (result i32)
    (local $j i32) (local $c i32) (local $v v128) (local $q i32) (local $b i32) (local $k i32)
    (local.set $j (i32.add (local.get $i) (i32.const 1)))
    (block $fail
      (loop $scan
        ;; 16 bytes at once while they all lie before $end: their quotes ($q) and
        ;; backslashes ($b) as bit masks, read in order from the masks alone.
        (if (i32.le_u (i32.add (local.get $j) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load offset=131072 (local.get $j)))
            (local.set $q (i8x16.bitmask
              (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
            (local.set $b (i8x16.bitmask
              (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))))
            ;; Escape-dense text (Codex output) would otherwise leave the SIMD loop at
            ;; every backslash: each escape is passed over here, in the same 16 bytes.
            (loop $escape
              (if (i32.eqz (local.get $b))
                (then
                  (if (local.get $q)
                    (then (return (i32.add (i32.add (local.get $j) (i32.ctz (local.get $q))) (i32.const 1)))))
                  (local.set $j (i32.add (local.get $j) (i32.const 16)))
                  (br $scan)))
              (local.set $k (i32.ctz (local.get $b)))
              ;; A quote before the first backslash ends the string.
              (if (i32.and (local.get $q) (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1)))
                (then (return (i32.add (i32.add (local.get $j) (i32.ctz (local.get $q))) (i32.const 1)))))
              (call $flag_surrogate (i32.add (local.get $j) (local.get $k)))
              ;; The escaped byte is the 17th: go on after it.
              (if (i32.eq (local.get $k) (i32.const 15))
                (then
                  (local.set $j (i32.add (local.get $j) (i32.const 17)))
                  (br $scan)))
              ;; The backslash and the byte it escapes are passed: their bits cleared.
              (local.set $c (i32.shl (i32.const -1) (i32.add (local.get $k) (i32.const 2))))
              (local.set $b (i32.and (local.get $b) (local.get $c)))
              (local.set $q (i32.and (local.get $q) (local.get $c)))
              (br $escape)))
          (else (br_if $fail (i32.ge_u (local.get $j) (local.get $end)))))
        (local.set $c (i32.load8_u offset=131072 (local.get $j)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then (return (i32.add (local.get $j) (i32.const 1)))))
        ;; A backslash escapes the next byte.
        (if (i32.eq (local.get $c) (i32.const 92))
          (then
            (call $flag_surrogate (local.get $j))
            (local.set $j (i32.add (local.get $j) (i32.const 2)))
            (br $scan)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $scan)))
    (i32.const -1))

  ;; The escape whose backslash is at $j: `\uD…`/`\ud…` sets header slot 5 (a string held
  ;; a possible lone surrogate, so the caller checks that line further; it resets the
  ;; slot). The bytes after the backslash are read even at or past the end bound.
  (func $flag_surrogate (param $j i32)
    (if (i32.and
          (i32.eq (i32.load8_u offset=131073 (local.get $j)) (i32.const 117))
          (i32.eq (i32.or (i32.load8_u offset=131074 (local.get $j)) (i32.const 32)) (i32.const 100)))
      (then (i32.store offset=49684 (i32.const 0) (i32.const 1)))))

  ;; Index of the first newline at or after $i and before $end, or -1: how a chunk is
  ;; split into lines, 16 bytes at a time.
  (func $newline (export "newline") (param $i i32) (param $end i32) (result i32)
    (local $j i32) (local $m i32)
    (local.set $j (local.get $i))
    (block $tail
      (loop $scan
        (br_if $tail (i32.gt_u (i32.add (local.get $j) (i32.const 16)) (local.get $end)))
        (local.set $m (i8x16.bitmask (i8x16.eq
          (v128.load offset=131072 (local.get $j))
          (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
        (if (local.get $m)
          (then (return (i32.add (local.get $j) (i32.ctz (local.get $m))))))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (br $scan)))
    (block $none
      (loop $byte
        (br_if $none (i32.ge_u (local.get $j) (local.get $end)))
        (if (i32.eq (i32.load8_u offset=131072 (local.get $j)) (i32.const 10))
          (then (return (local.get $j))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $byte)))
    (i32.const -1))

  ;; Index just past the object or array opening at $i (strings inside skipped whole).
  (func $nested_end (export "nested_end") (param $i i32) (param $end i32) (result i32)
    (local $j i32) (local $depth i32) (local $c i32)
    (local.set $j (local.get $i))
    (block $fail
      (loop $scan
        (br_if $fail (i32.ge_u (local.get $j) (local.get $end)))
        (local.set $c (i32.load8_u offset=131072 (local.get $j)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (local.set $j (call $string_end (local.get $j) (local.get $end)))
            (br_if $fail (i32.lt_s (local.get $j) (i32.const 0)))
            (br $scan)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
          (then (local.set $depth (i32.add (local.get $depth) (i32.const 1))))
          (else
            (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93)))
              (then
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (if (i32.eqz (local.get $depth))
                  (then (return (i32.add (local.get $j) (i32.const 1)))))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $scan)))
    (i32.const -1))

  ;; First index at or after $j that is not JSON whitespace (or $end).
  (func $skip_ws (param $j i32) (param $end i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
        (local.set $c (i32.load8_u offset=131072 (local.get $j)))
        (br_if $done (i32.eqz (call $is_ws (local.get $c))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (local.get $j))

  (func $is_ws (param $c i32) (result i32)
    (i32.or
      (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 10)))
      (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 9)))))

  ;; The byte at $j, or -1 at or past $end.
  (func $at (param $j i32) (param $end i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $j) (local.get $end))
      (then (i32.load8_u offset=131072 (local.get $j)))
      (else (i32.const -1))))

  ;; Index just past the value starting at $j: a string, object, array or scalar.
  (func $value_end (param $j i32) (param $end i32) (result i32)
    (local $c i32) (local $k i32)
    (local.set $c (call $at (local.get $j) (local.get $end)))
    (if (i32.eq (local.get $c) (i32.const 34))
      (then (return (call $string_end (local.get $j) (local.get $end)))))
    (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
      (then (return (call $nested_end (local.get $j) (local.get $end)))))
    ;; A scalar (number, true, false, null) runs to a comma, a closing bracket or space.
    (local.set $k (local.get $j))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $k) (local.get $end)))
        (local.set $c (i32.load8_u offset=131072 (local.get $k)))
        (br_if $done (i32.or
          (i32.or (i32.eq (local.get $c) (i32.const 44)) (i32.eq (local.get $c) (i32.const 125)))
          (i32.or (i32.eq (local.get $c) (i32.const 93)) (call $is_ws (local.get $c)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (if (result i32) (i32.gt_u (local.get $k) (local.get $j))
      (then (local.get $k))
      (else (i32.const -1))))

  ;; Whether the key bytes [$ks, $ke) equal the $klen bytes at $kaddr (raw, as keyIs).
  (func $key_is (param $ks i32) (param $ke i32) (param $kaddr i32) (param $klen i32) (result i32)
    (local $i i32)
    (if (i32.or (i32.eqz (local.get $klen))
          (i32.ne (i32.sub (local.get $ke) (local.get $ks)) (local.get $klen)))
      (then (return (i32.const 0))))
    (block $differ
      (loop $next
        (if (i32.ge_u (local.get $i) (local.get $klen)) (then (return (i32.const 1))))
        (br_if $differ (i32.ne
          (i32.load8_u offset=131072 (i32.add (local.get $ks) (local.get $i)))
          (i32.load8_u (i32.add (local.get $kaddr) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; Whether the key bytes [$ks, $ke) are name $n (counts: 0 the object holding them,
  ;; 1-4 its number fields, 5 an object inside it, 6-9 that object's number fields; key
  ;; check: 10 the line's object field, 11 the key looked for in it). Names are written
  ;; by the caller; an empty one matches no key.
  (func $is_name (param $ks i32) (param $ke i32) (param $n i32) (result i32)
    (call $key_is (local.get $ks) (local.get $ke)
      (i32.add (i32.const 49808) (i32.shl (local.get $n) (i32.const 6)))
      (i32.load offset=49760 (i32.shl (local.get $n) (i32.const 2)))))

  ;; Whether [$j, $ve) is exactly null, true or false (compared four bytes at a time, as
  ;; little-endian i32s).
  (func $is_literal (param $j i32) (param $ve i32) (result i32)
    (local $w i32)
    (local.set $w (i32.load offset=131072 (local.get $j)))
    (if (i32.eq (i32.sub (local.get $ve) (local.get $j)) (i32.const 4))
      (then
        (return (i32.or (i32.eq (local.get $w) (i32.const 0x6c6c756e))
          (i32.eq (local.get $w) (i32.const 0x65757274))))))
    (i32.and (i32.eq (i32.sub (local.get $ve) (local.get $j)) (i32.const 5))
      (i32.and (i32.eq (local.get $w) (i32.const 0x736c6166))
        (i32.eq (i32.load8_u offset=131076 (local.get $j)) (i32.const 101)))))

  ;; Count slot $slot (f64 at 49,696) from the value [$j, $ve), as Fields.numbers reads
  ;; it: plain digits are their number; a string, object, array or literal is no count, 0.
  ;; Returns 0 for any other number (a sign, a leading zero, a fraction, an exponent) and
  ;; bytes that are no JSON value (`nul`, `.5`): those are left to the JS reading, which
  ;; gives the same answer either way.
  (func $count_value (param $j i32) (param $ve i32) (param $slot i32) (result i32)
    (local $c i32) (local $v f64)
    (local.set $c (i32.load8_u offset=131072 (local.get $j)))
    (if (i32.and (i32.ne (local.get $c) (i32.const 45))
          (i32.gt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 9)))
      (then
        ;; A string, object or array (whose structure the walk checked) or a literal
        ;; counts 0; bytes that are no JSON value are left to the JS reading.
        (if (i32.and (i32.ne (local.get $c) (i32.const 34))
              (i32.and (i32.ne (local.get $c) (i32.const 123)) (i32.ne (local.get $c) (i32.const 91))))
          (then
            (if (i32.eqz (call $is_literal (local.get $j) (local.get $ve)))
              (then (return (i32.const 0))))))
        (f64.store offset=49696 (i32.shl (local.get $slot) (i32.const 3)) (f64.const 0))
        (return (i32.const 1))))
    ;; A leading zero with more after it (`0100`, `0.5`) is left to the JS reading, which
    ;; holds it to JSON's grammar.
    (if (i32.and (i32.eq (local.get $c) (i32.const 48))
          (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $ve)))
      (then (return (i32.const 0))))
    (loop $digit
      (if (i32.gt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 9))
        (then (return (i32.const 0))))
      ;; The same double arithmetic as the JS loop (n = n * 10 + d), so the same value.
      (local.set $v (f64.add (f64.mul (local.get $v) (f64.const 10))
        (f64.convert_i32_u (i32.sub (local.get $c) (i32.const 48)))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (if (i32.lt_u (local.get $j) (local.get $ve))
        (then
          (local.set $c (i32.load8_u offset=131072 (local.get $j)))
          (br $digit))))
    (f64.store offset=49696 (i32.shl (local.get $slot) (i32.const 3)) (local.get $v))
    (i32.const 1))

  ;; The counts of the object exactly spanning [$start, $end) (whitespace around allowed):
  ;; with $inner 0 the counts object (names 1-4 into slots 0-3, the last object named 5
  ;; read as $inner 1, or slots 4-7 zero when it is no object), with $inner 1 that inner
  ;; object (names 6-9 into slots 4-7; $counts_inner says it was read). Repeated keys:
  ;; the last one counts, as in JSON.parse. Returns 1 when everything was read here, 0
  ;; when the JS reading must do it (a form not read here, malformed structure).
  (func $counts (param $start i32) (param $end i32) (param $inner i32) (result i32)
    (local $j i32) (local $ks i32) (local $ke i32) (local $ve i32) (local $c i32) (local $n i32)
    (local.set $j (call $skip_ws (local.get $start) (local.get $end)))
    (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 123))
      (then (return (i32.const 0))))
    (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
    (local.set $c (call $at (local.get $j) (local.get $end)))
    (if (i32.ne (local.get $c) (i32.const 125))
      (then
        (loop $field
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 34))
            (then (return (i32.const 0))))
          (local.set $ks (i32.add (local.get $j) (i32.const 1)))
          (local.set $ke (call $string_end (local.get $j) (local.get $end)))
          (if (i32.lt_s (local.get $ke) (i32.const 0)) (then (return (i32.const 0))))
          (local.set $j (call $skip_ws (local.get $ke) (local.get $end)))
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 58))
            (then (return (i32.const 0))))
          (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
          (local.set $ke (i32.sub (local.get $ke) (i32.const 1)))
          (local.set $ve (call $value_end (local.get $j) (local.get $end)))
          (if (i32.lt_s (local.get $ve) (i32.const 0)) (then (return (i32.const 0))))
          ;; Names 1-4 (slots 0-3) in the counts object, 6-9 (slots 4-7) in the inner one.
          (local.set $n (select (i32.const 6) (i32.const 1) (local.get $inner)))
          (block $named
            (loop $name
              (if (call $is_name (local.get $ks) (local.get $ke) (local.get $n))
                (then
                  (if (i32.eqz (call $count_value (local.get $j) (local.get $ve)
                        (i32.sub (local.get $n) (select (i32.const 2) (i32.const 1) (local.get $inner)))))
                    (then (return (i32.const 0))))
                  (br $named)))
              (local.set $n (i32.add (local.get $n) (i32.const 1)))
              (br_if $name (i32.le_u (local.get $n) (select (i32.const 9) (i32.const 4) (local.get $inner))))))
          (if (i32.and (i32.eqz (local.get $inner))
                (call $is_name (local.get $ks) (local.get $ke) (i32.const 5)))
            (then
              ;; Not an object (null…): no counts, as when the key is absent.
              (call $clear_counts (i32.const 4))
              (global.set $counts_inner (i32.const 0))
              (if (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 123))
                (then
                  (if (i32.eqz (call $counts (local.get $j) (local.get $ve) (i32.const 1)))
                    (then (return (i32.const 0))))
                  (global.set $counts_inner (i32.const 1))))))
          (local.set $j (call $skip_ws (local.get $ve) (local.get $end)))
          (local.set $c (call $at (local.get $j) (local.get $end)))
          (if (i32.eq (local.get $c) (i32.const 44))
            (then
              (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
              (br $field))))))
    (i32.and (i32.eq (local.get $c) (i32.const 125))
      (i32.eq (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)) (local.get $end))))

  ;; Count slots $from to 7 set to 0.
  (func $clear_counts (param $from i32)
    (loop $slot
      (f64.store offset=49696 (i32.shl (local.get $from) (i32.const 3)) (f64.const 0))
      (local.set $from (i32.add (local.get $from) (i32.const 1)))
      (br_if $slot (i32.lt_u (local.get $from) (i32.const 8)))))

  ;; A field named name 0 in the nested object, whose value spans [$j, $ve): its counts
  ;; read into the slots, with the state at 49,688: 1 read (3 when its inner object was
  ;; read too), 2 left to JS (also when the value is not an object). A repeated key: the
  ;; last one counts.
  (func $read_counts (param $j i32) (param $ve i32)
    (call $clear_counts (i32.const 0))
    (global.set $counts_inner (i32.const 0))
    (i32.store offset=49688 (i32.const 0)
      (if (result i32) (call $counts (local.get $j) (local.get $ve) (i32.const 0))
        (then (i32.add (i32.const 1) (i32.shl (global.get $counts_inner) (i32.const 1))))
        (else (i32.const 2)))))

  ;; Whether the object exactly at [$start, $end) has a top-level key named name 11: 1 it
  ;; has (found before any malformed byte), 2 it has not, 3 malformed (the caller's JS
  ;; reading decides).
  (func $has_key (param $start i32) (param $end i32) (result i32)
    (local $j i32) (local $ks i32) (local $ke i32) (local $c i32)
    (local.set $j (call $skip_ws (i32.add (local.get $start) (i32.const 1)) (local.get $end)))
    (local.set $c (call $at (local.get $j) (local.get $end)))
    (if (i32.ne (local.get $c) (i32.const 125))
      (then
        (loop $field
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 34))
            (then (return (i32.const 3))))
          (local.set $ks (i32.add (local.get $j) (i32.const 1)))
          (local.set $ke (call $string_end (local.get $j) (local.get $end)))
          (if (i32.lt_s (local.get $ke) (i32.const 0)) (then (return (i32.const 3))))
          (if (call $is_name (local.get $ks) (i32.sub (local.get $ke) (i32.const 1)) (i32.const 11))
            (then (return (i32.const 1))))
          (local.set $j (call $skip_ws (local.get $ke) (local.get $end)))
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 58))
            (then (return (i32.const 3))))
          (local.set $j (call $value_end
            (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)) (local.get $end)))
          (if (i32.lt_s (local.get $j) (i32.const 0)) (then (return (i32.const 3))))
          (local.set $j (call $skip_ws (local.get $j) (local.get $end)))
          (local.set $c (call $at (local.get $j) (local.get $end)))
          (if (i32.eq (local.get $c) (i32.const 44))
            (then
              (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
              (br $field))))))
    (select (i32.const 2) (i32.const 3)
      (i32.and (i32.eq (local.get $c) (i32.const 125))
        (i32.eq (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)) (local.get $end)))))

  ;; A field of the line named name 10, whose value spans [$j, $ve): the key check's
  ;; answer at 49,692 (0 the value is not an object, else as $has_key). A repeated key:
  ;; the last one counts.
  (func $check_key (param $j i32) (param $ve i32)
    (i32.store offset=49692 (i32.const 0)
      (if (result i32) (i32.eq (i32.load8_u offset=131072 (local.get $j)) (i32.const 123))
        (then (call $has_key (local.get $j) (local.get $ve)))
        (else (i32.const 0)))))

  ;; The fields of the object starting at (whitespace before) $start, written at $base;
  ;; returns the index just past its `}`, -1 when malformed, -3 when there are more
  ;; fields than an area holds. $level 0 is a line (a field named key0 holding an object
  ;; is skimmed as level 1 in the same walk), 1 that nested object (a field named key1
  ;; holding an array has its elements written, and the fields of those that are
  ;; objects), 2 a plain object, 3 an element object (its fields written at $base, up to
  ;; the end of their area; their count in $element_fields).
  (func $fields (param $start i32) (param $end i32) (param $base i32) (param $level i32)
    (result i32)
    (local $j i32) (local $ks i32) (local $ke i32) (local $ve i32) (local $c i32)
    (local $n i32) (local $o i32)
    (local.set $j (call $skip_ws (local.get $start) (local.get $end)))
    (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 123))
      (then (return (i32.const -1))))
    (if (i32.eq (local.get $level) (i32.const 1))
      (then
        (global.set $nested_open (local.get $j))
        ;; A repeated nested key: only the last object's counts count.
        (i32.store offset=49688 (i32.const 0) (i32.const 0)))
      (else (if (i32.ne (local.get $level) (i32.const 3))
        (then (global.set $open (local.get $j))))))
    (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
    (local.set $c (call $at (local.get $j) (local.get $end)))
    (if (i32.ne (local.get $c) (i32.const 125))
      (then
        (loop $field
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 34))
            (then (return (i32.const -1))))
          (local.set $ks (i32.add (local.get $j) (i32.const 1)))
          (local.set $ke (call $string_end (local.get $j) (local.get $end)))
          (if (i32.lt_s (local.get $ke) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $j (call $skip_ws (local.get $ke) (local.get $end)))
          (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 58))
            (then (return (i32.const -1))))
          (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
          (local.set $c (call $at (local.get $j) (local.get $end)))
          (local.set $ke (i32.sub (local.get $ke) (i32.const 1)))
          (if (i32.and
                (i32.and (i32.eqz (local.get $level)) (i32.eq (local.get $c) (i32.const 123)))
                (call $key_is (local.get $ks) (local.get $ke) (i32.const 49152) (global.get $key0_len)))
            (then
              (local.set $ve (call $fields (local.get $j) (local.get $end) (i32.const 16384) (i32.const 1))))
            (else
              (if (i32.and
                    (i32.and (i32.eq (local.get $level) (i32.const 1)) (i32.eq (local.get $c) (i32.const 91)))
                    (call $key_is (local.get $ks) (local.get $ke) (i32.const 49408) (global.get $key1_len)))
                (then (local.set $ve (call $elements (local.get $j) (local.get $end))))
                (else (local.set $ve (call $value_end (local.get $j) (local.get $end)))))))
          (if (i32.lt_s (local.get $ve) (i32.const 0)) (then (return (local.get $ve))))
          (if (i32.and (i32.eq (local.get $level) (i32.const 1))
                (call $is_name (local.get $ks) (local.get $ke) (i32.const 0)))
            (then (call $read_counts (local.get $j) (local.get $ve))))
          (if (i32.and (i32.eqz (local.get $level))
                (call $is_name (local.get $ks) (local.get $ke) (i32.const 10)))
            (then (call $check_key (local.get $j) (local.get $ve))))
          (if (i32.ge_u (local.get $n) (i32.const 1024)) (then (return (i32.const -3))))
          (local.set $o (i32.add (local.get $base) (i32.shl (local.get $n) (i32.const 4))))
          (if (i32.and (i32.eq (local.get $level) (i32.const 3))
                (i32.gt_u (i32.add (local.get $o) (i32.const 16)) (i32.const 98304)))
            (then (return (i32.const -3))))
          (i32.store offset=0 (local.get $o) (local.get $ks))
          (i32.store offset=4 (local.get $o) (local.get $ke))
          (i32.store offset=8 (local.get $o) (local.get $j))
          (i32.store offset=12 (local.get $o) (local.get $ve))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $j (call $skip_ws (local.get $ve) (local.get $end)))
          (local.set $c (call $at (local.get $j) (local.get $end)))
          (if (i32.eq (local.get $c) (i32.const 44))
            (then
              (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
              (br $field))))))
    (if (i32.ne (local.get $c) (i32.const 125)) (then (return (i32.const -1))))
    (if (i32.eq (local.get $level) (i32.const 1))
      (then (global.set $nested_count (local.get $n)))
      (else (if (i32.eq (local.get $level) (i32.const 3))
        (then (global.set $element_fields (local.get $n)))
        (else (global.set $count (local.get $n))))))
    (i32.add (local.get $j) (i32.const 1)))

  ;; The elements of the array starting at $start: start and end of each, written at
  ;; 32 KiB, and the fields of each object among them (at 64 KiB; where they start and
  ;; how many, or -1, at 96 KiB); returns the index just past its `]`, -1 when
  ;; malformed, -3 when too many.
  (func $elements (param $start i32) (param $end i32) (result i32)
    (local $j i32) (local $ve i32) (local $c i32) (local $n i32) (local $o i32)
    (local $total i32) (local $k i32)
    (local.set $j (call $skip_ws (local.get $start) (local.get $end)))
    (if (i32.ne (call $at (local.get $j) (local.get $end)) (i32.const 91))
      (then (return (i32.const -1))))
    (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
    (local.set $c (call $at (local.get $j) (local.get $end)))
    (if (i32.ne (local.get $c) (i32.const 93))
      (then
        (loop $element
          (if (i32.ge_u (local.get $n) (i32.const 2048)) (then (return (i32.const -3))))
          (local.set $k (i32.const -1))
          (if (i32.eq (call $at (local.get $j) (local.get $end)) (i32.const 123))
            (then
              (local.set $ve (call $fields (local.get $j) (local.get $end)
                (i32.add (i32.const 65536) (i32.shl (local.get $total) (i32.const 4)))
                (i32.const 3)))
              (if (i32.eq (local.get $ve) (i32.const -3)) (then (return (i32.const -3))))
              (local.set $k (global.get $element_fields)))
            (else (local.set $ve (call $value_end (local.get $j) (local.get $end)))))
          (if (i32.lt_s (local.get $ve) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $o (i32.add (i32.const 32768) (i32.shl (local.get $n) (i32.const 3))))
          (i32.store offset=0 (local.get $o) (local.get $j))
          (i32.store offset=4 (local.get $o) (local.get $ve))
          (local.set $o (i32.add (i32.const 98304) (i32.shl (local.get $n) (i32.const 3))))
          (i32.store offset=0 (local.get $o) (local.get $total))
          (i32.store offset=4 (local.get $o) (local.get $k))
          (if (i32.ge_s (local.get $k) (i32.const 0))
            (then (local.set $total (i32.add (local.get $total) (local.get $k)))))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $j (call $skip_ws (local.get $ve) (local.get $end)))
          (local.set $c (call $at (local.get $j) (local.get $end)))
          (if (i32.eq (local.get $c) (i32.const 44))
            (then
              (local.set $j (call $skip_ws (i32.add (local.get $j) (i32.const 1)) (local.get $end)))
              (br $element))))))
    (if (i32.ne (local.get $c) (i32.const 93)) (then (return (i32.const -1))))
    (global.set $element_count (local.get $n))
    (i32.add (local.get $j) (i32.const 1)))

  ;; Skims the object at [$start, $end): its fields (count, open) at 0, or at 112 KiB
  ;; without $descend. With $descend also the object field named key0 at 16 KiB
  ;; (nested_count, nested_open; -1 when there is none), that object's array field named
  ;; key1 at 32 KiB (element_count, -1 when there is none), the counts of its field named
  ;; name 0 (see $read_counts; state 0 when there is none) and the key check of the
  ;; line's field named name 10 (see $check_key; 0 when there is none). Returns as
  ;; $fields.
  (func $skim (export "skim") (param $start i32) (param $end i32) (param $descend i32)
    (result i32)
    (local $e i32)
    (global.set $count (i32.const 0))
    (global.set $nested_count (i32.const -1))
    (global.set $element_count (i32.const -1))
    (i32.store offset=49688 (i32.const 0) (i32.const 0))
    (i32.store offset=49692 (i32.const 0) (i32.const 0))
    ;; A line (descending) at 0; any other object at 112 KiB, so that skimming a value of
    ;; a line leaves the line's own results in place for the caller to go on reading.
    (local.set $e (call $fields (local.get $start) (local.get $end)
      (select (i32.const 0) (i32.const 114688) (local.get $descend))
      (select (i32.const 0) (i32.const 2) (local.get $descend))))
    (i32.store offset=49664 (i32.const 0) (global.get $count))
    (i32.store offset=49668 (i32.const 0) (global.get $open))
    (i32.store offset=49672 (i32.const 0) (global.get $nested_count))
    (i32.store offset=49676 (i32.const 0) (global.get $nested_open))
    (i32.store offset=49680 (i32.const 0) (global.get $element_count))
    (local.get $e))
)
