;; toolgraph's WebAssembly SIMD (v128) kernels for the vector re-rank and sign-code scan hot paths.
;; Assembled by bench/build-simd-kernels.ts into kernels-wasm.ts (committed; a test re-assembles and compares).
;; The memory is imported: each index owns one WebAssembly.Memory holding its rows, ids, query and output.
;; Both kernels sum in float32: four f32x4 accumulators (16 lanes) over blocks of 16 elements, then blocks of 4
;; into the first, then (a0 + a1) + (a2 + a3), then lanes (l0 + l1) + (l2 + l3), then a scalar tail.
(module
  (import "env" "memory" (memory 1))

  ;; out[k] (f32) = Σ_j rows[ids[k]·d + j] · q[j];  rows, q: f32; ids: i32; byte addresses.
  (func (export "dots_f32")
    (param $rows i32) (param $d i32) (param $ids i32) (param $count i32) (param $q i32) (param $out i32)
    (local $k i32) (local $p i32) (local $j i32) (local $rowBytes i32) (local $end16 i32) (local $end4 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $s f32)
    (local.set $rowBytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $end16 (i32.shl (i32.and (local.get $d) (i32.const -16)) (i32.const 2)))
    (local.set $end4 (i32.shl (i32.and (local.get $d) (i32.const -4)) (i32.const 2)))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $p (i32.add (local.get $rows)
          (i32.mul (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))) (local.get $rowBytes))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $b16
          (loop $l16
            (br_if $b16 (i32.ge_u (local.get $j) (local.get $end16)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
              (v128.load (i32.add (local.get $p) (local.get $j))) (v128.load (i32.add (local.get $q) (local.get $j))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul
              (v128.load offset=16 (i32.add (local.get $p) (local.get $j))) (v128.load offset=16 (i32.add (local.get $q) (local.get $j))))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul
              (v128.load offset=32 (i32.add (local.get $p) (local.get $j))) (v128.load offset=32 (i32.add (local.get $q) (local.get $j))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul
              (v128.load offset=48 (i32.add (local.get $p) (local.get $j))) (v128.load offset=48 (i32.add (local.get $q) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 64)))
            (br $l16)))
        (block $b4
          (loop $l4
            (br_if $b4 (i32.ge_u (local.get $j) (local.get $end4)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
              (v128.load (i32.add (local.get $p) (local.get $j))) (v128.load (i32.add (local.get $q) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $l4)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (local.set $s (f32.add
          (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
          (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (block $b1
          (loop $l1
            (br_if $b1 (i32.ge_u (local.get $j) (local.get $rowBytes)))
            (local.set $s (f32.add (local.get $s) (f32.mul
              (f32.load (i32.add (local.get $p) (local.get $j))) (f32.load (i32.add (local.get $q) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $l1)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $s))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rowLoop))))

  ;; out[k] (f64) = scales[ids[k]] · Σ_j data[ids[k]·d + j] · q[j];  data: i8 (widened i8 → i16 → i32 → f32,
  ;; exact); q, scales: f32; the sum in f32 as above, the scale product in f64 (as the JS dotInt8).
  (func (export "dots_i8")
    (param $data i32) (param $d i32) (param $ids i32) (param $count i32) (param $q i32) (param $scales i32) (param $out i32)
    (local $k i32) (local $id i32) (local $p i32) (local $j i32) (local $qj i32) (local $end16 i32) (local $end4 i32)
    (local $v v128) (local $h v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $s f32)
    (local.set $end16 (i32.and (local.get $d) (i32.const -16)))
    (local.set $end4 (i32.and (local.get $d) (i32.const -4)))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $id (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $p (i32.add (local.get $data) (i32.mul (local.get $id) (local.get $d))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $b16
          (loop $l16
            (br_if $b16 (i32.ge_u (local.get $j) (local.get $end16)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $j))))
            (local.set $qj (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2))))
            (local.set $h (i16x8.extend_low_i8x16_s (local.get $v)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $h))) (v128.load (local.get $qj)))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $h))) (v128.load offset=16 (local.get $qj)))))
            (local.set $h (i16x8.extend_high_i8x16_s (local.get $v)))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $h))) (v128.load offset=32 (local.get $qj)))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $h))) (v128.load offset=48 (local.get $qj)))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $l16)))
        (block $b4
          (loop $l4
            (br_if $b4 (i32.ge_u (local.get $j) (local.get $end4)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (i16x8.extend_low_i8x16_s
                (v128.load32_zero (i32.add (local.get $p) (local.get $j))))))
              (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $l4)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (local.set $s (f32.add
          (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
          (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (block $b1
          (loop $l1
            (br_if $b1 (i32.ge_u (local.get $j) (local.get $d)))
            (local.set $s (f32.add (local.get $s) (f32.mul
              (f32.convert_i32_s (i32.load8_s (i32.add (local.get $p) (local.get $j))))
              (f32.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $l1)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3)))
          (f64.mul (f64.promote_f32 (local.get $s))
            (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $id) (i32.const 2)))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rowLoop))))

  ;; out[k] (f64) = scales[id] · (a·S + b·P + c), id = ids[k] (or k when ids < 0), over 128-bit blocks of the
  ;; sign code at codes + id·stride: S = Σ_p 2^p · popcount(plane_p AND code), p < 4 (planes: 4 × 16 bytes per block),
  ;; P = popcount(code). Per byte of a block the weighted count is ≤ 8·15 = 120 (i8), widened pairwise into i16
  ;; lanes (≤ 240 a block) and the code's byte popcounts summed in i8 (≤ 8 a block): exact for blocks ≤ 31; the
  ;; caller allows ≤ 16. At the end S (≤ 1920·blocks < 2^16) and P are packed as S + 2^16·P into one i32 sum.
  (func (export "scan_codes")
    (param $codes i32) (param $stride i32) (param $blocks i32) (param $ids i32) (param $count i32)
    (param $planes i32) (param $scales i32) (param $a f64) (param $b f64) (param $c f64) (param $out i32)
    (local $k i32) (local $id i32) (local $p i32) (local $pl i32) (local $bl i32) (local $t i32)
    (local $v v128) (local $w v128) (local $acc v128) (local $pop v128)
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $id (if (result i32) (i32.lt_s (local.get $ids) (i32.const 0))
          (then (local.get $k))
          (else (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))))))
        (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $id) (local.get $stride))))
        (local.set $pl (local.get $planes))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $pop (v128.const i32x4 0 0 0 0))
        (local.set $bl (i32.const 0))
        (block $bDone
          (loop $bLoop
            (br_if $bDone (i32.ge_u (local.get $bl) (local.get $blocks)))
            (local.set $v (v128.load (local.get $p)))
            ;; Horner: w = ((c3·2 + c2)·2 + c1)·2 + c0
            (local.set $w (i8x16.popcnt (v128.and (local.get $v) (v128.load offset=48 (local.get $pl)))))
            (local.set $w (i8x16.add (i8x16.add (local.get $w) (local.get $w))
              (i8x16.popcnt (v128.and (local.get $v) (v128.load offset=32 (local.get $pl))))))
            (local.set $w (i8x16.add (i8x16.add (local.get $w) (local.get $w))
              (i8x16.popcnt (v128.and (local.get $v) (v128.load offset=16 (local.get $pl))))))
            (local.set $w (i8x16.add (i8x16.add (local.get $w) (local.get $w))
              (i8x16.popcnt (v128.and (local.get $v) (v128.load (local.get $pl))))))
            (local.set $acc (i16x8.add (local.get $acc) (i16x8.extadd_pairwise_i8x16_u (local.get $w))))
            (local.set $pop (i8x16.add (local.get $pop) (i8x16.popcnt (local.get $v))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $pl (i32.add (local.get $pl) (i32.const 64)))
            (local.set $bl (i32.add (local.get $bl) (i32.const 1)))
            (br $bLoop)))
        (local.set $acc (i32x4.add (i32x4.extadd_pairwise_i16x8_u (local.get $acc))
          (i32x4.shl (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $pop))) (i32.const 16))))
        (local.set $t (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3)))
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $id) (i32.const 2)))))
            (f64.add (f64.add
              (f64.mul (local.get $a) (f64.convert_i32_u (i32.and (local.get $t) (i32.const 0xffff))))
              (f64.mul (local.get $b) (f64.convert_i32_u (i32.shr_u (local.get $t) (i32.const 16)))))
              (local.get $c))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rowLoop))))
)
