/* The lane type the packet kernel is written over, in the spirit of Box2D's
   b2FloatW: a float vector `fw` of SKIM_W lanes, a lane mask `mw`, and the
   handful of operations the kernel needs. packet_kernel.c is compiled once
   per kernel set with SKIM_LANES naming one of the implementations below,
   so every width runs the same source: the same IEEE operations (add, sub,
   mul, correctly rounded div and sqrt, ordered compares, exact negation) in
   the same order. That, plus -ffp-contract=off and no approximate
   reciprocals, is what makes the sets bitwise identical (DESIGN.md).

   Everything goes through SIMDe, so each implementation also compiles on
   machines without the native instructions (SIMDe then emulates them with
   the same IEEE results; `portable` forces that with SIMDE_NO_NATIVE).

   Compares are the ordered ones (false when either side is NaN), exactly
   like C's <, <=, >, >= in the scalar reference; "not less than" is written
   mw_andnot(fw_lt(a, b), ...) so NaN behaves as in `if (!(a < b))`. */
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
static inline mw mw_andnot(mw a, mw b) { return simde_mm_andnot_ps(a, b); } /* ~a & b */
static inline mw mw_none(void) { return simde_mm_setzero_ps(); }
static inline unsigned mw_bits(mw m) { return (unsigned)simde_mm_movemask_ps(m); }
static inline fw fw_iota(void) { return simde_mm_setr_ps(0, 1, 2, 3); }

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
static inline mw mw_andnot(mw a, mw b) { return simde_mm256_andnot_ps(a, b); }
static inline mw mw_none(void) { return simde_mm256_setzero_ps(); }
static inline unsigned mw_bits(mw m) { return (unsigned)simde_mm256_movemask_ps(m); }
static inline fw fw_iota(void) { return simde_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }

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
static inline mw mw_andnot(mw a, mw b) { return (mw)(~a & b); }
static inline mw mw_none(void) { return 0; }
static inline unsigned mw_bits(mw m) { return (unsigned)m; }
static inline fw fw_iota(void)
{
    return simde_mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
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
static inline mw mw_andnot(mw a, mw b) { return simde_vbicq_u32(b, a); } /* b & ~a */
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

#else
#error "unknown SKIM_LANES"
#endif

static inline int mw_any(mw m) { return mw_bits(m) != 0; }

#endif /* SKIM_SIMD_LANES_H */
