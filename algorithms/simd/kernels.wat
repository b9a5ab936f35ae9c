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

  ;; out[k] (f64, holding a float32 value) = scales[id] · (a·S + c) + b · scaleP[id] in float32 (the formula and
  ;; operation order of scan_blocked, so both give the same bits), id = ids[k] (or k when ids < 0), over 128-bit
  ;; blocks of the sign code at codes + id·stride: S = Σ_p 2^p · popcount(plane_p AND code), p < 4 (planes: 4 × 16
  ;; bytes per block); scaleP[id] = scales[id] · popcount of the bits scanned (precomputed). Per byte of a block the
  ;; weighted count is ≤ 8·15 = 120 (i8), widened pairwise into i16 lanes (≤ 240 a block): exact for blocks ≤ 31
  ;; (S ≤ 1920·blocks); the caller allows ≤ 16.
  (func (export "scan_codes")
    (param $codes i32) (param $stride i32) (param $blocks i32) (param $ids i32) (param $count i32)
    (param $planes i32) (param $scales i32) (param $scaleP i32) (param $a f32) (param $b f32) (param $c f32) (param $out i32)
    (param $sinkAt i32)
    (local $k i32) (local $id i32) (local $p i32) (local $pl i32) (local $bl i32) (local $t i32)
    (local $v v128) (local $w v128) (local $acc v128) (local $sink v128)
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $id (if (result i32) (i32.lt_s (local.get $ids) (i32.const 0))
          (then (local.get $k))
          (else
            ;; With an id list the codes are gathered at random: touch the code 8 ids ahead now (a load whose
            ;; value only feeds $sink, stored at the end), so its cache miss overlaps this row's work.
            (if (i32.lt_u (i32.add (local.get $k) (i32.const 8)) (local.get $count))
              (then (local.set $sink (v128.xor (local.get $sink) (v128.load (i32.add (local.get $codes)
                (i32.mul (i32.load offset=32 (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))) (local.get $stride))))))))
            (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))))))
        (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $id) (local.get $stride))))
        (local.set $pl (local.get $planes))
        (local.set $acc (v128.const i32x4 0 0 0 0))
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
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $pl (i32.add (local.get $pl) (i32.const 64)))
            (local.set $bl (i32.add (local.get $bl) (i32.const 1)))
            (br $bLoop)))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (local.get $acc)))
        (local.set $t (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3)))
          (f64.promote_f32 (f32.add
            (f32.mul (f32.load (i32.add (local.get $scales) (i32.shl (local.get $id) (i32.const 2))))
              (f32.add (f32.mul (local.get $a) (f32.convert_i32_s (local.get $t))) (local.get $c)))
            (f32.mul (local.get $b) (f32.load (i32.add (local.get $scaleP) (i32.shl (local.get $id) (i32.const 2))))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rowLoop)))
    (v128.store (local.get $sinkAt) (local.get $sink)))

  ;; FastScan-style scan of 1-bit codes (André, Kermarrec & Le Scouarnec, "Cache locality is not enough:
  ;; high-performance nearest neighbor search with product quantization fast scan", VLDB 2015; Faiss
  ;; IndexPQFastScan): the codes are stored in blocks of 32 vectors, $stride bytes a block (16 bytes per 4 code
  ;; bits); byte 16g + t of block B holds nibble g (code bits 4g .. 4g + 3) of vector 32B + t in its low half and
  ;; of vector 32B + 16 + t in its high half. The first $bytes bytes of each block are scanned (512 per 128 bits:
  ;; a prefix or the whole code). lut[16g + c] (u8) = Σ_{bit t of c} u_{4g+t}, u the 4-bit query (≤ 60), so
  ;; S_i = Σ_g lut[16g + nibble_g(i)] = Σ_j u_j b_ij is the same integer as scan_codes' (four nibbles are summed
  ;; in u8 lanes, ≤ 240, then widened into u16 lanes: exact up to 1,092 nibbles, 4,368 bits). Score (float32):
  ;;   scores[i] = scales[i] · (a·S_i + c) + b · scaleP[i],   scaleP[i] = scales[i] · popcount(scanned bits of i).
  ;; Blocks first, first + step, … below nBlocks are scored (step > 1 samples). With ids ≥ 0, every vector
  ;; i < n scoring ≥ cut is appended to ids (i32) and vals (f32); returns how many. tmp: 64 bytes of scratch.
  (func (export "scan_blocked")
    (param $codes i32) (param $stride i32) (param $bytes i32) (param $lut i32) (param $scales i32) (param $scaleP i32)
    (param $a f32) (param $b f32) (param $c f32)
    (param $first i32) (param $step i32) (param $nBlocks i32) (param $n i32)
    (param $tmp i32) (param $scores i32) (param $cut f32) (param $ids i32) (param $vals i32)
    (result i32)
    (local $blk i32) (local $base i32) (local $g i32) (local $q i32) (local $at i32) (local $id i32)
    (local $mask i32) (local $count i32)
    (local $x v128) (local $l v128) (local $sl v128) (local $sh v128) (local $s v128)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    (local $av v128) (local $bv v128) (local $cv v128) (local $cutv v128) (local $m0f v128)
    (local.set $av (f32x4.splat (local.get $a)))
    (local.set $bv (f32x4.splat (local.get $b)))
    (local.set $cv (f32x4.splat (local.get $c)))
    (local.set $cutv (f32x4.splat (local.get $cut)))
    (local.set $m0f (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (local.set $blk (local.get $first))
    (block $done
      (loop $blockLoop
        (br_if $done (i32.ge_u (local.get $blk) (local.get $nBlocks)))
        (local.set $base (i32.add (local.get $codes) (i32.mul (local.get $blk) (local.get $stride))))
        (local.set $acc0 (v128.const i32x4 0 0 0 0))
        (local.set $acc1 (v128.const i32x4 0 0 0 0))
        (local.set $acc2 (v128.const i32x4 0 0 0 0))
        (local.set $acc3 (v128.const i32x4 0 0 0 0))
        (local.set $g (i32.const 0))
        (block $gDone
          (loop $gLoop
            (br_if $gDone (i32.ge_u (local.get $g) (local.get $bytes)))
            (local.set $x (v128.load (i32.add (local.get $base) (local.get $g))))
            (local.set $l (v128.load (i32.add (local.get $lut) (local.get $g))))
            (local.set $sl (i8x16.swizzle (local.get $l) (v128.and (local.get $x) (local.get $m0f))))
            (local.set $sh (i8x16.swizzle (local.get $l) (i8x16.shr_u (local.get $x) (i32.const 4))))
            (local.set $x (v128.load offset=16 (i32.add (local.get $base) (local.get $g))))
            (local.set $l (v128.load offset=16 (i32.add (local.get $lut) (local.get $g))))
            (local.set $sl (i8x16.add (local.get $sl) (i8x16.swizzle (local.get $l) (v128.and (local.get $x) (local.get $m0f)))))
            (local.set $sh (i8x16.add (local.get $sh) (i8x16.swizzle (local.get $l) (i8x16.shr_u (local.get $x) (i32.const 4)))))
            (local.set $x (v128.load offset=32 (i32.add (local.get $base) (local.get $g))))
            (local.set $l (v128.load offset=32 (i32.add (local.get $lut) (local.get $g))))
            (local.set $sl (i8x16.add (local.get $sl) (i8x16.swizzle (local.get $l) (v128.and (local.get $x) (local.get $m0f)))))
            (local.set $sh (i8x16.add (local.get $sh) (i8x16.swizzle (local.get $l) (i8x16.shr_u (local.get $x) (i32.const 4)))))
            (local.set $x (v128.load offset=48 (i32.add (local.get $base) (local.get $g))))
            (local.set $l (v128.load offset=48 (i32.add (local.get $lut) (local.get $g))))
            (local.set $sl (i8x16.add (local.get $sl) (i8x16.swizzle (local.get $l) (v128.and (local.get $x) (local.get $m0f)))))
            (local.set $sh (i8x16.add (local.get $sh) (i8x16.swizzle (local.get $l) (i8x16.shr_u (local.get $x) (i32.const 4)))))
            (local.set $acc0 (i16x8.add (local.get $acc0) (i16x8.extend_low_i8x16_u (local.get $sl))))
            (local.set $acc1 (i16x8.add (local.get $acc1) (i16x8.extend_high_i8x16_u (local.get $sl))))
            (local.set $acc2 (i16x8.add (local.get $acc2) (i16x8.extend_low_i8x16_u (local.get $sh))))
            (local.set $acc3 (i16x8.add (local.get $acc3) (i16x8.extend_high_i8x16_u (local.get $sh))))
            (local.set $g (i32.add (local.get $g) (i32.const 64)))
            (br $gLoop)))
        ;; S of vectors 32B + 0 .. 31, in order, as u16
        (v128.store (local.get $tmp) (local.get $acc0))
        (v128.store offset=16 (local.get $tmp) (local.get $acc1))
        (v128.store offset=32 (local.get $tmp) (local.get $acc2))
        (v128.store offset=48 (local.get $tmp) (local.get $acc3))
        (local.set $q (i32.const 0))
        (block $qDone
          (loop $qLoop
            (br_if $qDone (i32.ge_u (local.get $q) (i32.const 8)))
            ;; byte offset of vectors 32B + 4q .. + 3 in the f32 arrays
            (local.set $at (i32.shl (i32.add (i32.shl (local.get $blk) (i32.const 5)) (i32.shl (local.get $q) (i32.const 2))) (i32.const 2)))
            (local.set $s (f32x4.add
              (f32x4.mul (v128.load (i32.add (local.get $scales) (local.get $at)))
                (f32x4.add (f32x4.mul (local.get $av)
                  (f32x4.convert_i32x4_s (v128.load16x4_u (i32.add (local.get $tmp) (i32.shl (local.get $q) (i32.const 3))))))
                  (local.get $cv)))
              (f32x4.mul (local.get $bv) (v128.load (i32.add (local.get $scaleP) (local.get $at))))))
            (v128.store (i32.add (local.get $scores) (local.get $at)) (local.get $s))
            (if (i32.ge_s (local.get $ids) (i32.const 0))
              (then
                (local.set $mask (i32x4.bitmask (f32x4.ge (local.get $s) (local.get $cutv))))
                (block $mDone
                  (loop $mLoop
                    (br_if $mDone (i32.eqz (local.get $mask)))
                    (local.set $id (i32.add (i32.shr_u (local.get $at) (i32.const 2)) (i32.ctz (local.get $mask))))
                    (if (i32.lt_u (local.get $id) (local.get $n))
                      (then
                        (i32.store (i32.add (local.get $ids) (i32.shl (local.get $count) (i32.const 2))) (local.get $id))
                        (f32.store (i32.add (local.get $vals) (i32.shl (local.get $count) (i32.const 2)))
                          (f32.load (i32.add (local.get $scores) (i32.shl (local.get $id) (i32.const 2)))))
                        (local.set $count (i32.add (local.get $count) (i32.const 1)))))
                    (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
                    (br $mLoop)))))
            (local.set $q (i32.add (local.get $q) (i32.const 1)))
            (br $qLoop)))
        (local.set $blk (i32.add (local.get $blk) (local.get $step)))
        (br $blockLoop)))
    (local.get $count))

  ;; out[k] (f64) = dotAt(rows, ids[k]·d, q, d) of algorithms/linalg/dot.ts bit for bit: rows f32 (promoted
  ;; exactly), q f64, products and sums in float64 (wasm never fuses a multiply-add), four accumulators s_{j mod 4}
  ;; held as f64x2 lanes [s0, s1] and [s2, s3], the tail (d mod 4) added to s0, then (s0 + s1) + (s2 + s3).
  (func (export "dots_f64")
    (param $rows i32) (param $d i32) (param $ids i32) (param $count i32) (param $q i32) (param $out i32)
    (local $k i32) (local $p i32) (local $j i32) (local $end4 i32) (local $a01 v128) (local $a23 v128) (local $s0 f64)
    (local.set $end4 (i32.and (local.get $d) (i32.const -4)))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $p (i32.add (local.get $rows)
          (i32.mul (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))) (i32.shl (local.get $d) (i32.const 2)))))
        (local.set $a01 (v128.const i32x4 0 0 0 0))
        (local.set $a23 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $b4
          (loop $l4
            (br_if $b4 (i32.ge_u (local.get $j) (local.get $end4)))
            (local.set $a01 (f64x2.add (local.get $a01) (f64x2.mul
              (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
              (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 3)))))))
            (local.set $a23 (f64x2.add (local.get $a23) (f64x2.mul
              (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
              (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 3)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $l4)))
        (local.set $s0 (f64x2.extract_lane 0 (local.get $a01)))
        (block $bt
          (loop $lt
            (br_if $bt (i32.ge_u (local.get $j) (local.get $d)))
            (local.set $s0 (f64.add (local.get $s0) (f64.mul
              (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
              (f64.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 3)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $lt)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3)))
          (f64.add (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $a01)))
            (f64.add (f64x2.extract_lane 0 (local.get $a23)) (f64x2.extract_lane 1 (local.get $a23)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rowLoop))))

  ;; out[k] (i32) = Σ_j c_j · q_j for the positions first + k < end of 4-bit codes c (two coordinates a byte: low
  ;; nibble coordinate 2b, high nibble 2b + 1; `bytes` per code, a multiple of 16, codes stored back to back) and an
  ;; i16 query q in the kernel's lane order (per 16 code bytes, 32 i16: coordinates 2l of bytes 0–7, 2l of bytes
  ;; 8–15, then 2l + 1 of bytes 0–7 and of bytes 8–15). Nibbles widened u8 → i16, i32x4.dot_i16x8_s: exact integers
  ;; while Σ_j 15·|q_j| < 2^31 (the caller keeps |q_j| ≤ 32767 and the coordinates ≤ 4096).
  (func (export "scan_u4")
    (param $codes i32) (param $bytes i32) (param $first i32) (param $end i32) (param $q i32) (param $out i32)
    (local $p i32) (local $j i32) (local $qj i32) (local $v v128) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $a1 v128)
    (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $first) (local.get $bytes))))
    (block $done
      (loop $pos
        (br_if $done (i32.ge_u (local.get $first) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (local.set $qj (local.get $q))
        (block $b16
          (loop $l16
            (br_if $b16 (i32.ge_u (local.get $j) (local.get $bytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $j))))
            (local.set $lo (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $hi (i8x16.shr_u (local.get $v) (i32.const 4)))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $lo)) (v128.load (local.get $qj)))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $lo)) (v128.load offset=16 (local.get $qj)))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $hi)) (v128.load offset=32 (local.get $qj)))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $hi)) (v128.load offset=48 (local.get $qj)))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (local.set $qj (i32.add (local.get $qj) (i32.const 64)))
            (br $l16)))
        (local.set $a0 (i32x4.add (local.get $a0) (local.get $a1)))
        (i32.store (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
          (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $p (i32.add (local.get $p) (local.get $bytes)))
        (local.set $first (i32.add (local.get $first) (i32.const 1)))
        (br $pos))))

;; $sink xor the first 16 bytes of every 64-byte line of the code of id $i (touches its lines; see scan_u4_ids).
  (func $touch (param $sink v128) (param $codes i32) (param $bytes i32) (param $i i32) (result v128)
    (local $p i32) (local $j i32)
    (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $i) (local.get $bytes))))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $j) (local.get $bytes)))
        (local.set $sink (v128.xor (local.get $sink) (v128.load (i32.add (local.get $p) (local.get $j)))))
        (local.set $j (i32.add (local.get $j) (i32.const 64)))
        (br $l)))
    (local.get $sink))

  ;; out[k] (i32) = Σ_j c_j · q_j for the codes of ids[k], k < count (the code of id i at codes + i·bytes): scan_u4 over
  ;; a list of ids instead of a range of positions (the graph stage's gathers), the same lanes, the same exact sums.
  ;; The ids are taken in chunks of 16: every 64-byte line of a chunk's codes is touched first (loads feeding only
  ;; $sink, stored at $sinkAt), then the chunk is scored. The ids are random, so the codes' lines miss the caches; the
  ;; touches of a chunk, issued back to back, wait for their lines together instead of one code after another
  ;; (development measurement, 100k random codes of 256 bytes: about 3× fewer CPU ns a code; a load 8 codes ahead,
  ;; interleaved with the scoring, gained nothing: docs/decisions/vector-index-graph.md).
  (func $scan_u4_ids (export "scan_u4_ids")
    (param $codes i32) (param $bytes i32) (param $ids i32) (param $count i32) (param $q i32) (param $out i32)
    (param $sinkAt i32)
    (local $k i32) (local $p i32) (local $j i32) (local $qj i32) (local $v v128) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $a1 v128) (local $sink v128) (local $chunk i32) (local $t i32)
    (block $done
      (loop $pos
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (if (i32.eqz (i32.and (local.get $k) (i32.const 15)))
          (then
            (local.set $chunk (select (local.get $count) (i32.add (local.get $k) (i32.const 16))
              (i32.lt_u (local.get $count) (i32.add (local.get $k) (i32.const 16)))))
            (local.set $t (local.get $k))
            (block $b
              (loop $l
                (br_if $b (i32.ge_u (local.get $t) (local.get $chunk)))
                (local.set $sink (call $touch (local.get $sink) (local.get $codes) (local.get $bytes)
                  (i32.load (i32.add (local.get $ids) (i32.shl (local.get $t) (i32.const 2))))))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $l)))))
        (local.set $p (i32.add (local.get $codes)
          (i32.mul (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))) (local.get $bytes))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (local.set $qj (local.get $q))
        (block $b16
          (loop $l16
            (br_if $b16 (i32.ge_u (local.get $j) (local.get $bytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $j))))
            (local.set $lo (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $hi (i8x16.shr_u (local.get $v) (i32.const 4)))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $lo)) (v128.load (local.get $qj)))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $lo)) (v128.load offset=16 (local.get $qj)))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $hi)) (v128.load offset=32 (local.get $qj)))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $hi)) (v128.load offset=48 (local.get $qj)))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (local.set $qj (i32.add (local.get $qj) (i32.const 64)))
            (br $l16)))
        (local.set $a0 (i32x4.add (local.get $a0) (local.get $a1)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
          (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pos)))
    (v128.store (local.get $sinkAt) (local.get $sink)))

  ;; Σ_j c_aj · c_bj (i32) of the 4-bit code at id $a against the codes of ids[k], k < count (both codes unsigned
  ;; nibbles, the same layout; exact: ≤ 225·D). out[k] at $out. The graph build's code-to-code products.
  (func (export "dots_u4u4")
    (param $codes i32) (param $bytes i32) (param $a i32) (param $ids i32) (param $count i32) (param $out i32)
    (local $k i32) (local $pa i32) (local $p i32) (local $j i32) (local $va v128) (local $vb v128) (local $acc v128)
    (local.set $pa (i32.add (local.get $codes) (i32.mul (local.get $a) (local.get $bytes))))
    (block $done
      (loop $pos
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $p (i32.add (local.get $codes)
          (i32.mul (i32.load (i32.add (local.get $ids) (i32.shl (local.get $k) (i32.const 2)))) (local.get $bytes))))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $b16
          (loop $l16
            (br_if $b16 (i32.ge_u (local.get $j) (local.get $bytes)))
            ;; one operand as i8 nibbles (≤ 15) and the other as i16: i16x8 products ≤ 225, dot pairs them into i32
            (local.set $va (v128.load (i32.add (local.get $pa) (local.get $j))))
            (local.set $vb (v128.load (i32.add (local.get $p) (local.get $j))))
            (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
              (i16x8.extend_low_i8x16_u (v128.and (local.get $va) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
              (i16x8.extend_low_i8x16_u (v128.and (local.get $vb) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))))
            (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
              (i16x8.extend_high_i8x16_u (v128.and (local.get $va) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
              (i16x8.extend_high_i8x16_u (v128.and (local.get $vb) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))))
            (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
              (i16x8.extend_low_i8x16_u (i8x16.shr_u (local.get $va) (i32.const 4)))
              (i16x8.extend_low_i8x16_u (i8x16.shr_u (local.get $vb) (i32.const 4))))))
            (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
              (i16x8.extend_high_i8x16_u (i8x16.shr_u (local.get $va) (i32.const 4)))
              (i16x8.extend_high_i8x16_u (i8x16.shr_u (local.get $vb) (i32.const 4))))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $l16)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pos))))

;; Σ_j c_aj · c_bj (i32) of the 4-bit codes at ids $a and $b (dots_u4u4 for one pair, the same exact integer).
  (func $pair_u4 (param $codes i32) (param $bytes i32) (param $a i32) (param $b i32) (result i32)
    (local $pa i32) (local $pb i32) (local $j i32) (local $va v128) (local $vb v128) (local $acc v128)
    (local.set $pa (i32.add (local.get $codes) (i32.mul (local.get $a) (local.get $bytes))))
    (local.set $pb (i32.add (local.get $codes) (i32.mul (local.get $b) (local.get $bytes))))
    (block $b16
      (loop $l16
        (br_if $b16 (i32.ge_u (local.get $j) (local.get $bytes)))
        (local.set $va (v128.load (i32.add (local.get $pa) (local.get $j))))
        (local.set $vb (v128.load (i32.add (local.get $pb) (local.get $j))))
        (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
          (i16x8.extend_low_i8x16_u (v128.and (local.get $va) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
          (i16x8.extend_low_i8x16_u (v128.and (local.get $vb) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))))
        (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
          (i16x8.extend_high_i8x16_u (v128.and (local.get $va) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
          (i16x8.extend_high_i8x16_u (v128.and (local.get $vb) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))))
        (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
          (i16x8.extend_low_i8x16_u (i8x16.shr_u (local.get $va) (i32.const 4)))
          (i16x8.extend_low_i8x16_u (i8x16.shr_u (local.get $vb) (i32.const 4))))))
        (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
          (i16x8.extend_high_i8x16_u (i8x16.shr_u (local.get $va) (i32.const 4)))
          (i16x8.extend_high_i8x16_u (i8x16.shr_u (local.get $vb) (i32.const 4))))))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (br $l16)))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
      (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))

  ;; ‖y_a − y_b‖² as the graph build estimates it (algorithms/vector/graph.ts header and its `dist`, the same f64
  ;; operations in the same order): self_a + self_b − ((2·α_a)·α_b)·((P_ab − 7.5·(s_a + s_b)) + half).
  (func $dist_u4 (param $codes i32) (param $bytes i32) (param $scales i32) (param $self i32) (param $sums i32)
    (param $half f64) (param $a i32) (param $b i32) (result f64)
    (f64.sub
      (f64.add (f64.load (i32.add (local.get $self) (i32.shl (local.get $a) (i32.const 3))))
        (f64.load (i32.add (local.get $self) (i32.shl (local.get $b) (i32.const 3)))))
      (f64.mul
        (f64.mul
          (f64.mul (f64.const 2) (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $a) (i32.const 2))))))
          (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $b) (i32.const 2))))))
        (f64.add
          (f64.sub (f64.convert_i32_s (call $pair_u4 (local.get $codes) (local.get $bytes) (local.get $a) (local.get $b)))
            (f64.mul (f64.const 7.5) (f64.convert_i32_s (i32.add
              (i32.load (i32.add (local.get $sums) (i32.shl (local.get $a) (i32.const 2))))
              (i32.load (i32.add (local.get $sums) (i32.shl (local.get $b) (i32.const 2))))))))
          (local.get $half)))))

  ;; The code of id $a as an i16 query at $q in scan_u4's lane order (k_j = c_aj), so that scan_u4_ids returns
  ;; S_b = Σ_j c_bj · c_aj = P_ab (the build's code-to-code products, exact).
  (func (export "u4_lanes") (param $codes i32) (param $bytes i32) (param $a i32) (param $q i32)
    (local $p i32) (local $j i32) (local $v v128) (local $lo v128) (local $hi v128)
    (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $a) (local.get $bytes))))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $j) (local.get $bytes)))
        (local.set $v (v128.load (i32.add (local.get $p) (local.get $j))))
        (local.set $lo (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
        (local.set $hi (i8x16.shr_u (local.get $v) (i32.const 4)))
        (v128.store (local.get $q) (i16x8.extend_low_i8x16_u (local.get $lo)))
        (v128.store offset=16 (local.get $q) (i16x8.extend_high_i8x16_u (local.get $lo)))
        (v128.store offset=32 (local.get $q) (i16x8.extend_low_i8x16_u (local.get $hi)))
        (v128.store offset=48 (local.get $q) (i16x8.extend_high_i8x16_u (local.get $hi)))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $l))))

  ;; The graph build's neighbour selection (algorithms/vector/graph.ts selectNeighbours, its JS reference, the same
  ;; result bit for bit): the candidates cand[0 .. m) get their distance to $p (candD, f64), are sorted nearest first
  ;; (ties: smaller id; cand and candD rewritten in that order), then HNSW's heuristic keeps c unless an already kept
  ;; r has dist(c, r) < dist(c, p), up to $limit kept (written at $kept). Returns the number kept. Every line
  ;; of the candidates' codes is touched first (the re-selections' candidates are random ids: see scan_u4_ids).
  (func (export "select_u4")
    (param $codes i32) (param $bytes i32) (param $scales i32) (param $self i32) (param $sums i32) (param $half f64)
    (param $p i32) (param $cand i32) (param $candD i32) (param $m i32) (param $limit i32) (param $kept i32)
    (param $sinkAt i32)
    (result i32)
    (local $t i32) (local $u i32) (local $c i32) (local $dc f64) (local $k i32) (local $dom i32) (local $sink v128)
    ;; every line of the candidates' codes touched first (as scan_u4_ids: their misses overlap)
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $m)))
        (local.set $sink (call $touch (local.get $sink) (local.get $codes) (local.get $bytes)
          (i32.load (i32.add (local.get $cand) (i32.shl (local.get $t) (i32.const 2))))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    (v128.store (local.get $sinkAt) (local.get $sink))
    ;; the distances to $p
    (local.set $t (i32.const 0))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $m)))
        (f64.store (i32.add (local.get $candD) (i32.shl (local.get $t) (i32.const 3)))
          (call $dist_u4 (local.get $codes) (local.get $bytes) (local.get $scales) (local.get $self) (local.get $sums)
            (local.get $half) (local.get $p)
            (i32.load (i32.add (local.get $cand) (i32.shl (local.get $t) (i32.const 2))))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    ;; insertion sort by (distance, id)
    (local.set $t (i32.const 1))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $m)))
        (local.set $c (i32.load (i32.add (local.get $cand) (i32.shl (local.get $t) (i32.const 2)))))
        (local.set $dc (f64.load (i32.add (local.get $candD) (i32.shl (local.get $t) (i32.const 3)))))
        (local.set $u (local.get $t))
        (block $b2
          (loop $l2
            (br_if $b2 (i32.eqz (local.get $u)))
            ;; stop when the element before is not after (dc, c)
            (br_if $b2 (i32.eqz (select
              (f64.gt (f64.load (i32.add (local.get $candD) (i32.shl (i32.sub (local.get $u) (i32.const 1)) (i32.const 3)))) (local.get $dc))
              (i32.gt_s (i32.load (i32.add (local.get $cand) (i32.shl (i32.sub (local.get $u) (i32.const 1)) (i32.const 2)))) (local.get $c))
              (f64.ne (f64.load (i32.add (local.get $candD) (i32.shl (i32.sub (local.get $u) (i32.const 1)) (i32.const 3)))) (local.get $dc)))))
            (i32.store (i32.add (local.get $cand) (i32.shl (local.get $u) (i32.const 2)))
              (i32.load (i32.add (local.get $cand) (i32.shl (i32.sub (local.get $u) (i32.const 1)) (i32.const 2)))))
            (f64.store (i32.add (local.get $candD) (i32.shl (local.get $u) (i32.const 3)))
              (f64.load (i32.add (local.get $candD) (i32.shl (i32.sub (local.get $u) (i32.const 1)) (i32.const 3)))))
            (local.set $u (i32.sub (local.get $u) (i32.const 1)))
            (br $l2)))
        (i32.store (i32.add (local.get $cand) (i32.shl (local.get $u) (i32.const 2))) (local.get $c))
        (f64.store (i32.add (local.get $candD) (i32.shl (local.get $u) (i32.const 3))) (local.get $dc))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    ;; the heuristic
    (local.set $t (i32.const 0))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $m)))
        (br_if $b (i32.ge_u (local.get $k) (local.get $limit)))
        (local.set $c (i32.load (i32.add (local.get $cand) (i32.shl (local.get $t) (i32.const 2)))))
        (local.set $dc (f64.load (i32.add (local.get $candD) (i32.shl (local.get $t) (i32.const 3)))))
        (local.set $dom (i32.const 0))
        (local.set $u (i32.const 0))
        (block $b2
          (loop $l2
            (br_if $b2 (i32.ge_u (local.get $u) (local.get $k)))
            (if (f64.lt
                  (call $dist_u4 (local.get $codes) (local.get $bytes) (local.get $scales) (local.get $self)
                    (local.get $sums) (local.get $half) (local.get $c)
                    (i32.load (i32.add (local.get $kept) (i32.shl (local.get $u) (i32.const 2)))))
                  (local.get $dc))
              (then (local.set $dom (i32.const 1)) (br $b2)))
            (local.set $u (i32.add (local.get $u) (i32.const 1)))
            (br $l2)))
        (if (i32.eqz (local.get $dom))
          (then
            (i32.store (i32.add (local.get $kept) (i32.shl (local.get $k) (i32.const 2))) (local.get $c))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    (local.get $k))

    ;; The graph stage's beam search (algorithms/vector/graph.ts beamSearch, the same steps in the same order, so the
  ;; same pool bit for bit). A pool of at most $beam members sorted by est descending (ids i32 at $pIds, est f64 at
  ;; $pEst, expanded flags u8 at $pDone; $psize members); est_v = (f64(scale_v) · step) · (f64(S_v) − offset), S_v the
  ;; scan_u4_ids sum of v's code against the query at $q. visited (u32 at $visited, by id) = $mark means seen.
  ;; The entries (not yet seen) are scored and offered; then repeatedly the best unexpanded member's unseen
  ;; neighbours (n × $deg i32 at $nbrs, −1 ends a row; or, when $offs ≥ 0, compact rows of 3-byte little-endian
  ;; ids: v's at bytes 3·offs[v] .. 3·offs[v + 1] of $nbrs, offs n + 1 i32 at $offs) are scored and offered, the scan resuming from the best
  ;; position that changed, until every member is expanded. Returns the pool's size.
  (global $psize (mut i32) (i32.const 0))

  ;; Offers (id, est): refused ($beam returned) when the pool is full and est is not above its last member; else
  ;; inserted after every member with est ≥ its own (the last one dropped when full); returns its position.
  (func $pool_insert
    (param $id i32) (param $est f64) (param $pIds i32) (param $pEst i32) (param $pDone i32) (param $beam i32)
    (result i32)
    (local $lo i32) (local $hi i32) (local $mid i32) (local $t i32)
    (if (i32.eq (global.get $psize) (local.get $beam))
      (then
        (if (i32.eqz (f64.gt (local.get $est)
              (f64.load (i32.add (local.get $pEst) (i32.shl (i32.sub (local.get $beam) (i32.const 1)) (i32.const 3))))))
          (then (return (local.get $beam))))))
    (local.set $hi (global.get $psize))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $lo) (local.get $hi)))
        (local.set $mid (i32.shr_u (i32.add (local.get $lo) (local.get $hi)) (i32.const 1)))
        (if (f64.ge (f64.load (i32.add (local.get $pEst) (i32.shl (local.get $mid) (i32.const 3)))) (local.get $est))
          (then (local.set $lo (i32.add (local.get $mid) (i32.const 1))))
          (else (local.set $hi (local.get $mid))))
        (br $l)))
    (if (i32.eq (global.get $psize) (local.get $beam))
      (then (local.set $t (i32.sub (local.get $beam) (i32.const 1))))
      (else
        (local.set $t (global.get $psize))
        (global.set $psize (i32.add (global.get $psize) (i32.const 1)))))
    (block $b2
      (loop $l2
        (br_if $b2 (i32.le_s (local.get $t) (local.get $lo)))
        (i32.store (i32.add (local.get $pIds) (i32.shl (local.get $t) (i32.const 2)))
          (i32.load (i32.add (local.get $pIds) (i32.shl (i32.sub (local.get $t) (i32.const 1)) (i32.const 2)))))
        (f64.store (i32.add (local.get $pEst) (i32.shl (local.get $t) (i32.const 3)))
          (f64.load (i32.add (local.get $pEst) (i32.shl (i32.sub (local.get $t) (i32.const 1)) (i32.const 3)))))
        (i32.store8 (i32.add (local.get $pDone) (local.get $t))
          (i32.load8_u (i32.add (local.get $pDone) (i32.sub (local.get $t) (i32.const 1)))))
        (local.set $t (i32.sub (local.get $t) (i32.const 1)))
        (br $l2)))
    (i32.store (i32.add (local.get $pIds) (i32.shl (local.get $lo) (i32.const 2))) (local.get $id))
    (f64.store (i32.add (local.get $pEst) (i32.shl (local.get $lo) (i32.const 3))) (local.get $est))
    (i32.store8 (i32.add (local.get $pDone) (local.get $lo)) (i32.const 0))
    (local.get $lo))

  ;; The beam's estimate of v from its sum S: (f64(scale_v) · step) · (f64(S) − offset) for a query; in the build
  ;; ($bias ≥ 0: S = P_av, the query being the anchor a's code, u4_lanes) the same inner product as the query
  ;; ŷ_a + Rμ would give, ⟨ŷ_a + Rμ, ŷ_v⟩ = f64(α_v) · ((f64(α_a) · ((S − 7.5·(s_a + s_v)) + half)) + bias_v), with
  ;; bias_v = Σ_j (Rμ)_j (c_vj − 7.5) (f64 at $bias, by id; s_i i32 at $sums; half = 56.25·D).
  (func $beam_est (param $v i32) (param $S i32) (param $scales i32) (param $step f64) (param $offset f64)
    (param $bias i32) (param $sums i32) (param $half f64) (param $anchor i32) (result f64)
    (if (result f64) (i32.ge_s (local.get $bias) (i32.const 0))
      (then (f64.mul
        (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $v) (i32.const 2)))))
        (f64.add
          (f64.mul
            (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $anchor) (i32.const 2)))))
            (f64.add
              (f64.sub (f64.convert_i32_s (local.get $S))
                (f64.mul (f64.const 7.5) (f64.convert_i32_s (i32.add
                  (i32.load (i32.add (local.get $sums) (i32.shl (local.get $anchor) (i32.const 2))))
                  (i32.load (i32.add (local.get $sums) (i32.shl (local.get $v) (i32.const 2))))))))
              (local.get $half)))
          (f64.load (i32.add (local.get $bias) (i32.shl (local.get $v) (i32.const 3)))))))
      (else (f64.mul
        (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $scales) (i32.shl (local.get $v) (i32.const 2)))))
          (local.get $step))
        (f64.sub (f64.convert_i32_s (local.get $S)) (local.get $offset))))))

  (func (export "beam_u4")
    (param $codes i32) (param $bytes i32) (param $nbrs i32) (param $deg i32) (param $scales i32)
    (param $visited i32) (param $mark i32) (param $entries i32) (param $entryCount i32)
    (param $q i32) (param $ids i32) (param $out i32) (param $sinkAt i32)
    (param $pIds i32) (param $pEst i32) (param $pDone i32) (param $beam i32)
    (param $step f64) (param $offset f64) (param $offs i32)
    (param $bias i32) (param $sums i32) (param $half f64) (param $anchor i32)
    (result i32)
    (local $c i32) (local $t i32) (local $v i32) (local $va i32) (local $i i32) (local $p i32) (local $end i32)
    (local $at i32) (local $lowest i32) (local $width i32) (local $mask i32)
    (global.set $psize (i32.const 0))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $entryCount)))
        (local.set $v (i32.load (i32.add (local.get $entries) (i32.shl (local.get $t) (i32.const 2)))))
        (local.set $va (i32.add (local.get $visited) (i32.shl (local.get $v) (i32.const 2))))
        (if (i32.ne (i32.load (local.get $va)) (local.get $mark))
          (then
            (i32.store (local.get $va) (local.get $mark))
            (i32.store (i32.add (local.get $ids) (i32.shl (local.get $c) (i32.const 2))) (local.get $v))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    (call $scan_u4_ids (local.get $codes) (local.get $bytes) (local.get $ids) (local.get $c) (local.get $q)
      (local.get $out) (local.get $sinkAt))
    (local.set $t (i32.const 0))
    (block $b
      (loop $l
        (br_if $b (i32.ge_u (local.get $t) (local.get $c)))
        (local.set $v (i32.load (i32.add (local.get $ids) (i32.shl (local.get $t) (i32.const 2)))))
        (drop (call $pool_insert (local.get $v)
          (call $beam_est (local.get $v) (i32.load (i32.add (local.get $out) (i32.shl (local.get $t) (i32.const 2))))
            (local.get $scales) (local.get $step) (local.get $offset) (local.get $bias) (local.get $sums)
            (local.get $half) (local.get $anchor))
          (local.get $pIds) (local.get $pEst) (local.get $pDone) (local.get $beam)))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $l)))
    (block $stop
      (loop $hop
        (block $b
          (loop $l
            (br_if $b (i32.ge_u (local.get $i) (global.get $psize)))
            (br_if $b (i32.eqz (i32.load8_u (i32.add (local.get $pDone) (local.get $i)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $l)))
        (br_if $stop (i32.ge_u (local.get $i) (global.get $psize)))
        (i32.store8 (i32.add (local.get $pDone) (local.get $i)) (i32.const 1))
        (local.set $v (i32.load (i32.add (local.get $pIds) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ge_s (local.get $offs) (i32.const 0))
          (then
            ;; compact rows: v's neighbours are the 3-byte ids nbrs[offs[v] .. offs[v + 1])
            (local.set $va (i32.add (local.get $offs) (i32.shl (local.get $v) (i32.const 2))))
            (local.set $p (i32.add (local.get $nbrs) (i32.mul (i32.load (local.get $va)) (i32.const 3))))
            (local.set $end (i32.add (local.get $nbrs) (i32.mul (i32.load offset=4 (local.get $va)) (i32.const 3))))
            (local.set $width (i32.const 3))
            (local.set $mask (i32.const 0xffffff)))
          (else
            (local.set $p (i32.add (local.get $nbrs) (i32.shl (i32.mul (local.get $v) (local.get $deg)) (i32.const 2))))
            (local.set $end (i32.add (local.get $p) (i32.shl (local.get $deg) (i32.const 2))))
            (local.set $width (i32.const 4))
            (local.set $mask (i32.const -1))))
        (local.set $c (i32.const 0))
        (block $b
          (loop $l
            (br_if $b (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (i32.and (i32.load (local.get $p)) (local.get $mask)))
            (br_if $b (i32.lt_s (local.get $v) (i32.const 0)))
            (local.set $va (i32.add (local.get $visited) (i32.shl (local.get $v) (i32.const 2))))
            (if (i32.ne (i32.load (local.get $va)) (local.get $mark))
              (then
                (i32.store (local.get $va) (local.get $mark))
                (i32.store (i32.add (local.get $ids) (i32.shl (local.get $c) (i32.const 2))) (local.get $v))
                (local.set $c (i32.add (local.get $c) (i32.const 1)))))
            (local.set $p (i32.add (local.get $p) (local.get $width)))
            (br $l)))
        (if (i32.gt_u (local.get $c) (i32.const 0))
          (then
            (call $scan_u4_ids (local.get $codes) (local.get $bytes) (local.get $ids) (local.get $c) (local.get $q)
              (local.get $out) (local.get $sinkAt))
            (local.set $lowest (local.get $beam))
            (local.set $t (i32.const 0))
            (block $b
              (loop $l
                (br_if $b (i32.ge_u (local.get $t) (local.get $c)))
                (local.set $v (i32.load (i32.add (local.get $ids) (i32.shl (local.get $t) (i32.const 2)))))
                (local.set $at (call $pool_insert (local.get $v)
                  (call $beam_est (local.get $v)
                    (i32.load (i32.add (local.get $out) (i32.shl (local.get $t) (i32.const 2))))
                    (local.get $scales) (local.get $step) (local.get $offset) (local.get $bias) (local.get $sums)
                    (local.get $half) (local.get $anchor))
                  (local.get $pIds) (local.get $pEst) (local.get $pDone) (local.get $beam)))
                (if (i32.lt_u (local.get $at) (local.get $lowest)) (then (local.set $lowest (local.get $at))))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $l)))
            (if (i32.lt_u (local.get $lowest) (local.get $i)) (then (local.set $i (local.get $lowest))))))
        (br $hop)))
    (global.get $psize))
)
