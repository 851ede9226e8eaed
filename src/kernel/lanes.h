/* The lane type the packet kernel is written over, in the spirit of Box2D's
   b2FloatW: a float vector `fw` of SKIM_W lanes, a lane mask `mw`, and the
   handful of operations the kernel needs. packet_kernel.c is compiled once
   per kernel set with SKIM_LANES naming one of the implementations below,
   so every width runs the same source: the same IEEE operations (add, sub,
   mul, correctly rounded div and sqrt, ordered compares, exact negation) in
   the same order. That, plus -ffp-contract=off and no approximate
   reciprocals, is what makes the sets bitwise identical.

   Everything goes through SIMDe, so each implementation also compiles on
   machines without the native instructions (SIMDe then emulates them with
   the same IEEE results; `portable` forces that with SIMDE_NO_NATIVE).

   Compares are the ordered ones (false when either side is NaN), exactly
   like C's <, <=, >, >= in the scalar reference; "not less than" is written
   mw_and_not(..., fw_lt(a, b)) so NaN behaves as in `if (!(a < b))`.

   Mask operations read in the order they are meant: mw_and_not(a, b) is
   "a and not b" (x86's andnot(a, b) is the other way round, ~a & b; each
   lane type's mw_andnot_x86 takes that order, and mw_and_not swaps it).

   Triangle and lane indices ride in fw too, as bit patterns (u32_*): they
   are only moved, selected and compared as unsigned integers, never used
   in float arithmetic. fw_compress packs the lanes selected by a key
   (ck_make(mask)) to the front of dst and may write up to SKIM_W floats
   there. */
#ifndef SKIM_SIMD_LANES_H
#define SKIM_SIMD_LANES_H

#define SKIM_LANES_X86_128 1 /* sse41 (native) and portable (SIMDE_NO_NATIVE) */
#define SKIM_LANES_X86_256 2 /* avx2 */
#define SKIM_LANES_X86_512 3 /* avx512 (F, DQ, VL, BW) */
#define SKIM_LANES_NEON 4    /* AArch64 NEON, or SIMDe's emulation of it elsewhere */

#ifndef SKIM_LANES
#error "SKIM_LANES must name a lane implementation"
#endif

#include <stdint.h>

/* Byte shuffles that pack the lanes selected by a 4-bit mask to the front
   (pshufb / tbl; 128 = zero). Used to compact 4-lane groups. */
static const uint8_t skim_compress4_bytes[16][16] = {
    { 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128 },
    { 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
};

#if SKIM_LANES == SKIM_LANES_X86_128
/* ---------------------------------------------------------------- 4 wide */
#include <simde/x86/sse4.1.h>
#define SKIM_W 4
typedef simde__m128 fw;
typedef simde__m128 mw; /* all-ones / all-zeros per lane */

static inline fw fw_set1(float x) { return simde_mm_set1_ps(x); }
static inline fw fw_load(const float *p) { return simde_mm_loadu_ps(p); }
static inline void fw_store(float *p, fw a) { simde_mm_storeu_ps(p, a); }
static inline fw fw_add(fw a, fw b) { return simde_mm_add_ps(a, b); }
static inline fw fw_sub(fw a, fw b) { return simde_mm_sub_ps(a, b); }
static inline fw fw_mul(fw a, fw b) { return simde_mm_mul_ps(a, b); }
static inline fw fw_div(fw a, fw b) { return simde_mm_div_ps(a, b); }
static inline fw fw_sqrt(fw a) { return simde_mm_sqrt_ps(a); }
static inline fw fw_neg(fw a) { return simde_mm_xor_ps(a, simde_mm_set1_ps(-0.0f)); }
static inline mw fw_lt(fw a, fw b) { return simde_mm_cmplt_ps(a, b); }
static inline mw fw_le(fw a, fw b) { return simde_mm_cmple_ps(a, b); }
static inline mw fw_gt(fw a, fw b) { return simde_mm_cmpgt_ps(a, b); }
static inline mw fw_ge(fw a, fw b) { return simde_mm_cmpge_ps(a, b); }
static inline fw fw_select(mw m, fw a, fw b) { return simde_mm_blendv_ps(b, a, m); }
static inline mw mw_and(mw a, mw b) { return simde_mm_and_ps(a, b); }
static inline mw mw_or(mw a, mw b) { return simde_mm_or_ps(a, b); }
static inline mw mw_andnot_x86(mw off, mw m) { return simde_mm_andnot_ps(off, m); } /* m & ~off */
static inline mw mw_none(void) { return simde_mm_setzero_ps(); }
static inline unsigned mw_bits(mw m) { return (unsigned)simde_mm_movemask_ps(m); }
static inline fw fw_iota(void) { return simde_mm_setr_ps(0, 1, 2, 3); }
/* min / max as x86 defines them: a < b ? a : b, a > b ? a : b. */
static inline fw fw_min(fw a, fw b) { return simde_mm_min_ps(a, b); }
static inline fw fw_max(fw a, fw b) { return simde_mm_max_ps(a, b); }
static inline mw fw_eq(fw a, fw b) { return simde_mm_cmpeq_ps(a, b); }
static inline fw u32_set1(uint32_t x) { return simde_mm_castsi128_ps(simde_mm_set1_epi32((int32_t)x)); }
static inline fw u32_load(const uint32_t *p)
{
    return simde_mm_castsi128_ps(simde_mm_loadu_si128((const simde__m128i *)(const void *)p));
}
static inline fw u32_lane_ids(uint32_t first)
{
    return simde_mm_castsi128_ps(simde_mm_add_epi32(simde_mm_set1_epi32((int32_t)first),
                                                    simde_mm_setr_epi32(0, 1, 2, 3)));
}
static inline mw u32_lt(fw a, fw b)
{
    const simde__m128i sign = simde_mm_set1_epi32(INT32_MIN);
    return simde_mm_castsi128_ps(
        simde_mm_cmplt_epi32(simde_mm_xor_si128(simde_mm_castps_si128(a), sign),
                             simde_mm_xor_si128(simde_mm_castps_si128(b), sign)));
}
static inline mw u32_eq(fw a, fw b)
{
    return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(simde_mm_castps_si128(a),
                                                      simde_mm_castps_si128(b)));
}
typedef simde__m128i ck; /* compress key: a byte shuffle */
static inline ck ck_make(mw m)
{
    return simde_mm_loadu_si128((const simde__m128i *)(const void *)skim_compress4_bytes[mw_bits(m)]);
}
static inline void fw_compress(float *dst, ck key, fw v)
{
    simde_mm_storeu_ps(dst, simde_mm_castsi128_ps(simde_mm_shuffle_epi8(simde_mm_castps_si128(v), key)));
}

#elif SKIM_LANES == SKIM_LANES_X86_256
/* ---------------------------------------------------------------- 8 wide */
#include <simde/x86/avx2.h>
#define SKIM_W 8
typedef simde__m256 fw;
typedef simde__m256 mw;

static inline fw fw_set1(float x) { return simde_mm256_set1_ps(x); }
static inline fw fw_load(const float *p) { return simde_mm256_loadu_ps(p); }
static inline void fw_store(float *p, fw a) { simde_mm256_storeu_ps(p, a); }
static inline fw fw_add(fw a, fw b) { return simde_mm256_add_ps(a, b); }
static inline fw fw_sub(fw a, fw b) { return simde_mm256_sub_ps(a, b); }
static inline fw fw_mul(fw a, fw b) { return simde_mm256_mul_ps(a, b); }
static inline fw fw_div(fw a, fw b) { return simde_mm256_div_ps(a, b); }
static inline fw fw_sqrt(fw a) { return simde_mm256_sqrt_ps(a); }
static inline fw fw_neg(fw a) { return simde_mm256_xor_ps(a, simde_mm256_set1_ps(-0.0f)); }
static inline mw fw_lt(fw a, fw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
static inline mw fw_le(fw a, fw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
static inline mw fw_gt(fw a, fw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
static inline mw fw_ge(fw a, fw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
static inline fw fw_select(mw m, fw a, fw b) { return simde_mm256_blendv_ps(b, a, m); }
static inline mw mw_and(mw a, mw b) { return simde_mm256_and_ps(a, b); }
static inline mw mw_or(mw a, mw b) { return simde_mm256_or_ps(a, b); }
static inline mw mw_andnot_x86(mw off, mw m) { return simde_mm256_andnot_ps(off, m); }
static inline mw mw_none(void) { return simde_mm256_setzero_ps(); }
static inline unsigned mw_bits(mw m) { return (unsigned)simde_mm256_movemask_ps(m); }
static inline fw fw_iota(void) { return simde_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }
static inline fw fw_min(fw a, fw b) { return simde_mm256_min_ps(a, b); }
static inline fw fw_max(fw a, fw b) { return simde_mm256_max_ps(a, b); }
static inline mw fw_eq(fw a, fw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
static inline fw u32_set1(uint32_t x)
{
    return simde_mm256_castsi256_ps(simde_mm256_set1_epi32((int32_t)x));
}
static inline fw u32_load(const uint32_t *p)
{
    return simde_mm256_castsi256_ps(simde_mm256_loadu_si256((const void *)p));
}
static inline fw u32_lane_ids(uint32_t first)
{
    return simde_mm256_castsi256_ps(simde_mm256_add_epi32(
        simde_mm256_set1_epi32((int32_t)first), simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
static inline mw u32_lt(fw a, fw b)
{
    const simde__m256i sign = simde_mm256_set1_epi32(INT32_MIN);
    return simde_mm256_castsi256_ps(
        simde_mm256_cmpgt_epi32(simde_mm256_xor_si256(simde_mm256_castps_si256(b), sign),
                                simde_mm256_xor_si256(simde_mm256_castps_si256(a), sign)));
}
static inline mw u32_eq(fw a, fw b)
{
    return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(simde_mm256_castps_si256(a),
                                                            simde_mm256_castps_si256(b)));
}
/* The lanes of an 8-bit mask in order, one nibble each (lane i of the
   packed vector is nibble i), for vpermps. */
static const uint32_t skim_compress8_lanes[256] = {
    0x00000000, 0x00000000, 0x00000001, 0x00000010, 0x00000002, 0x00000020, 0x00000021, 0x00000210,
    0x00000003, 0x00000030, 0x00000031, 0x00000310, 0x00000032, 0x00000320, 0x00000321, 0x00003210,
    0x00000004, 0x00000040, 0x00000041, 0x00000410, 0x00000042, 0x00000420, 0x00000421, 0x00004210,
    0x00000043, 0x00000430, 0x00000431, 0x00004310, 0x00000432, 0x00004320, 0x00004321, 0x00043210,
    0x00000005, 0x00000050, 0x00000051, 0x00000510, 0x00000052, 0x00000520, 0x00000521, 0x00005210,
    0x00000053, 0x00000530, 0x00000531, 0x00005310, 0x00000532, 0x00005320, 0x00005321, 0x00053210,
    0x00000054, 0x00000540, 0x00000541, 0x00005410, 0x00000542, 0x00005420, 0x00005421, 0x00054210,
    0x00000543, 0x00005430, 0x00005431, 0x00054310, 0x00005432, 0x00054320, 0x00054321, 0x00543210,
    0x00000006, 0x00000060, 0x00000061, 0x00000610, 0x00000062, 0x00000620, 0x00000621, 0x00006210,
    0x00000063, 0x00000630, 0x00000631, 0x00006310, 0x00000632, 0x00006320, 0x00006321, 0x00063210,
    0x00000064, 0x00000640, 0x00000641, 0x00006410, 0x00000642, 0x00006420, 0x00006421, 0x00064210,
    0x00000643, 0x00006430, 0x00006431, 0x00064310, 0x00006432, 0x00064320, 0x00064321, 0x00643210,
    0x00000065, 0x00000650, 0x00000651, 0x00006510, 0x00000652, 0x00006520, 0x00006521, 0x00065210,
    0x00000653, 0x00006530, 0x00006531, 0x00065310, 0x00006532, 0x00065320, 0x00065321, 0x00653210,
    0x00000654, 0x00006540, 0x00006541, 0x00065410, 0x00006542, 0x00065420, 0x00065421, 0x00654210,
    0x00006543, 0x00065430, 0x00065431, 0x00654310, 0x00065432, 0x00654320, 0x00654321, 0x06543210,
    0x00000007, 0x00000070, 0x00000071, 0x00000710, 0x00000072, 0x00000720, 0x00000721, 0x00007210,
    0x00000073, 0x00000730, 0x00000731, 0x00007310, 0x00000732, 0x00007320, 0x00007321, 0x00073210,
    0x00000074, 0x00000740, 0x00000741, 0x00007410, 0x00000742, 0x00007420, 0x00007421, 0x00074210,
    0x00000743, 0x00007430, 0x00007431, 0x00074310, 0x00007432, 0x00074320, 0x00074321, 0x00743210,
    0x00000075, 0x00000750, 0x00000751, 0x00007510, 0x00000752, 0x00007520, 0x00007521, 0x00075210,
    0x00000753, 0x00007530, 0x00007531, 0x00075310, 0x00007532, 0x00075320, 0x00075321, 0x00753210,
    0x00000754, 0x00007540, 0x00007541, 0x00075410, 0x00007542, 0x00075420, 0x00075421, 0x00754210,
    0x00007543, 0x00075430, 0x00075431, 0x00754310, 0x00075432, 0x00754320, 0x00754321, 0x07543210,
    0x00000076, 0x00000760, 0x00000761, 0x00007610, 0x00000762, 0x00007620, 0x00007621, 0x00076210,
    0x00000763, 0x00007630, 0x00007631, 0x00076310, 0x00007632, 0x00076320, 0x00076321, 0x00763210,
    0x00000764, 0x00007640, 0x00007641, 0x00076410, 0x00007642, 0x00076420, 0x00076421, 0x00764210,
    0x00007643, 0x00076430, 0x00076431, 0x00764310, 0x00076432, 0x00764320, 0x00764321, 0x07643210,
    0x00000765, 0x00007650, 0x00007651, 0x00076510, 0x00007652, 0x00076520, 0x00076521, 0x00765210,
    0x00007653, 0x00076530, 0x00076531, 0x00765310, 0x00076532, 0x00765320, 0x00765321, 0x07653210,
    0x00007654, 0x00076540, 0x00076541, 0x00765410, 0x00076542, 0x00765420, 0x00765421, 0x07654210,
    0x00076543, 0x00765430, 0x00765431, 0x07654310, 0x00765432, 0x07654320, 0x07654321, 0x76543210,
};
typedef simde__m256i ck; /* compress key: vpermps lane order */
static inline ck ck_make(mw m)
{
    return simde_mm256_and_si256(
        simde_mm256_srlv_epi32(simde_mm256_set1_epi32((int32_t)skim_compress8_lanes[mw_bits(m)]),
                               simde_mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
        simde_mm256_set1_epi32(15));
}
static inline void fw_compress(float *dst, ck key, fw v)
{
    simde_mm256_storeu_ps(dst, simde_mm256_permutevar8x32_ps(v, key));
}

#elif SKIM_LANES == SKIM_LANES_X86_512
/* --------------------------------------------------------------- 16 wide */
#include <simde/x86/avx512.h>
#define SKIM_W 16
typedef simde__m512 fw;
typedef simde__mmask16 mw; /* one bit per lane */

static inline fw fw_set1(float x) { return simde_mm512_set1_ps(x); }
static inline fw fw_load(const float *p) { return simde_mm512_loadu_ps(p); }
static inline void fw_store(float *p, fw a) { simde_mm512_storeu_ps(p, a); }
static inline fw fw_add(fw a, fw b) { return simde_mm512_add_ps(a, b); }
static inline fw fw_sub(fw a, fw b) { return simde_mm512_sub_ps(a, b); }
static inline fw fw_mul(fw a, fw b) { return simde_mm512_mul_ps(a, b); }
static inline fw fw_div(fw a, fw b) { return simde_mm512_div_ps(a, b); }
static inline fw fw_sqrt(fw a) { return simde_mm512_sqrt_ps(a); }
static inline fw fw_neg(fw a) { return simde_mm512_xor_ps(a, simde_mm512_set1_ps(-0.0f)); }
static inline mw fw_lt(fw a, fw b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LT_OQ); }
static inline mw fw_le(fw a, fw b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LE_OQ); }
static inline mw fw_gt(fw a, fw b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ); }
static inline mw fw_ge(fw a, fw b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GE_OQ); }
static inline fw fw_select(mw m, fw a, fw b) { return simde_mm512_mask_blend_ps(m, b, a); }
static inline mw mw_and(mw a, mw b) { return (mw)(a & b); }
static inline mw mw_or(mw a, mw b) { return (mw)(a | b); }
static inline mw mw_andnot_x86(mw off, mw m) { return (mw)(m & ~off); }
static inline mw mw_none(void) { return 0; }
static inline unsigned mw_bits(mw m) { return (unsigned)m; }
static inline fw fw_iota(void)
{
    return simde_mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
static inline fw fw_min(fw a, fw b) { return simde_mm512_min_ps(a, b); }
static inline fw fw_max(fw a, fw b) { return simde_mm512_max_ps(a, b); }
static inline mw fw_eq(fw a, fw b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ); }
static inline fw u32_set1(uint32_t x)
{
    return simde_mm512_castsi512_ps(simde_mm512_set1_epi32((int32_t)x));
}
static inline fw u32_load(const uint32_t *p)
{
    return simde_mm512_castsi512_ps(simde_mm512_loadu_si512((const void *)p));
}
static inline fw u32_lane_ids(uint32_t first)
{
    return simde_mm512_castsi512_ps(simde_mm512_add_epi32(
        simde_mm512_set1_epi32((int32_t)first),
        simde_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
}
static inline mw u32_lt(fw a, fw b)
{
    const simde__m512i sign = simde_mm512_set1_epi32(INT32_MIN);
    return simde_mm512_cmpgt_epi32_mask(simde_mm512_xor_si512(simde_mm512_castps_si512(b), sign),
                                        simde_mm512_xor_si512(simde_mm512_castps_si512(a), sign));
}
static inline mw u32_eq(fw a, fw b)
{
    return simde_mm512_cmpeq_epi32_mask(simde_mm512_castps_si512(a),
                                        simde_mm512_castps_si512(b));
}
/* Compress in a register, then a plain store (the memory form of
   vcompressps is slow on some cores). */
typedef simde__mmask16 ck; /* compress key: the mask itself */
static inline ck ck_make(mw m) { return m; }
static inline void fw_compress(float *dst, ck key, fw v)
{
    simde_mm512_storeu_ps(dst, simde_mm512_maskz_compress_ps(key, v));
}

#elif SKIM_LANES == SKIM_LANES_NEON
/* ------------------------------------------------------- 4 wide, AArch64 */
#include <simde/arm/neon.h>
#define SKIM_W 4
typedef simde_float32x4_t fw;
typedef simde_uint32x4_t mw;

static inline fw fw_set1(float x) { return simde_vdupq_n_f32(x); }
static inline fw fw_load(const float *p) { return simde_vld1q_f32(p); }
static inline void fw_store(float *p, fw a) { simde_vst1q_f32(p, a); }
static inline fw fw_add(fw a, fw b) { return simde_vaddq_f32(a, b); }
static inline fw fw_sub(fw a, fw b) { return simde_vsubq_f32(a, b); }
static inline fw fw_mul(fw a, fw b) { return simde_vmulq_f32(a, b); }
/* AArch64 FDIV and FSQRT are correctly rounded. SIMDe 0.7 has no vdivq_f32
   or vsqrtq_f32 of its own, so elsewhere (the emulated build used to test
   this source on x86) they are done per lane with the scalar IEEE ops,
   which round identically. */
#if defined(SIMDE_ARM_NEON_A64V8_NATIVE)
static inline fw fw_div(fw a, fw b) { return vdivq_f32(a, b); }
static inline fw fw_sqrt(fw a) { return vsqrtq_f32(a); }
#else
static inline fw fw_div(fw a, fw b)
{
    float x[4], y[4];
    simde_vst1q_f32(x, a);
    simde_vst1q_f32(y, b);
    for (int i = 0; i < 4; ++i)
        x[i] = x[i] / y[i];
    return simde_vld1q_f32(x);
}
static inline fw fw_sqrt(fw a)
{
    float x[4];
    simde_vst1q_f32(x, a);
    for (int i = 0; i < 4; ++i)
        x[i] = __builtin_sqrtf(x[i]);
    return simde_vld1q_f32(x);
}
#endif
static inline fw fw_neg(fw a) { return simde_vnegq_f32(a); }
static inline mw fw_lt(fw a, fw b) { return simde_vcltq_f32(a, b); }
static inline mw fw_le(fw a, fw b) { return simde_vcleq_f32(a, b); }
static inline mw fw_gt(fw a, fw b) { return simde_vcgtq_f32(a, b); }
static inline mw fw_ge(fw a, fw b) { return simde_vcgeq_f32(a, b); }
static inline fw fw_select(mw m, fw a, fw b) { return simde_vbslq_f32(m, a, b); }
static inline mw mw_and(mw a, mw b) { return simde_vandq_u32(a, b); }
static inline mw mw_or(mw a, mw b) { return simde_vorrq_u32(a, b); }
static inline mw mw_andnot_x86(mw off, mw m) { return simde_vbicq_u32(m, off); } /* m & ~off */
static inline mw mw_none(void) { return simde_vdupq_n_u32(0); }
static inline unsigned mw_bits(mw m)
{
    static const uint32_t weights[4] = { 1, 2, 4, 8 };
    return (unsigned)simde_vaddvq_u32(simde_vandq_u32(m, simde_vld1q_u32(weights)));
}
static inline fw fw_iota(void)
{
    static const float lanes[4] = { 0, 1, 2, 3 };
    return simde_vld1q_f32(lanes);
}
/* Not vminq/vmaxq (their NaN and zero rules differ): x86's a < b ? a : b. */
static inline fw fw_min(fw a, fw b) { return fw_select(fw_lt(a, b), a, b); }
static inline fw fw_max(fw a, fw b) { return fw_select(fw_gt(a, b), a, b); }
static inline mw fw_eq(fw a, fw b) { return simde_vceqq_f32(a, b); }
static inline fw u32_set1(uint32_t x) { return simde_vreinterpretq_f32_u32(simde_vdupq_n_u32(x)); }
static inline fw u32_load(const uint32_t *p) { return simde_vreinterpretq_f32_u32(simde_vld1q_u32(p)); }
static inline fw u32_lane_ids(uint32_t first)
{
    static const uint32_t lanes[4] = { 0, 1, 2, 3 };
    return simde_vreinterpretq_f32_u32(
        simde_vaddq_u32(simde_vdupq_n_u32(first), simde_vld1q_u32(lanes)));
}
static inline mw u32_lt(fw a, fw b)
{
    return simde_vcltq_u32(simde_vreinterpretq_u32_f32(a), simde_vreinterpretq_u32_f32(b));
}
static inline mw u32_eq(fw a, fw b)
{
    return simde_vceqq_u32(simde_vreinterpretq_u32_f32(a), simde_vreinterpretq_u32_f32(b));
}
#if defined(SIMDE_ARM_NEON_A64V8_NATIVE)
typedef simde_uint8x16_t ck; /* compress key: a tbl byte shuffle */
static inline ck ck_make(mw m) { return simde_vld1q_u8(skim_compress4_bytes[mw_bits(m)]); }
static inline void fw_compress(float *dst, ck key, fw v)
{
    simde_vst1q_f32(dst, simde_vreinterpretq_f32_u8(
                             simde_vqtbl1q_u8(simde_vreinterpretq_u8_f32(v), key)));
}
#else
/* SIMDe emulates tbl byte by byte; moving the selected lanes is cheaper. */
typedef unsigned ck;
static inline ck ck_make(mw m) { return mw_bits(m); }
static inline void fw_compress(float *dst, ck key, fw v)
{
    float lanes[4];
    simde_vst1q_f32(lanes, v);
    for (int i = 0; i < 4; ++i)
        if (key >> i & 1u)
            *dst++ = lanes[i];
}
#endif

#else
#error "unknown SKIM_LANES"
#endif

/* a and not b: the lanes of a that are not in b. A macro over the x86-order
   primitive rather than a function with its operands swapped, so that the
   compiler evaluates the operands in the primitive's order and emits the
   same instructions as the x86 intrinsic called directly. */
#define mw_and_not(a, b) mw_andnot_x86((b), (a))

static inline int mw_any(mw m) { return mw_bits(m) != 0; }
static inline unsigned mw_count(mw m) { return (unsigned)__builtin_popcount(mw_bits(m)); }

#endif /* SKIM_SIMD_LANES_H */
