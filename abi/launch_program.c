/*
 * launch_program.c - launch programs (launch_program.h): building blocks,
 * the byte form, and the verifier that makes a read program safe to run.
 *
 * The byte form, per function, in this order (u32 counts before arrays;
 * strings as in support/wire.h; a dtype as one u32: code | bits << 8 |
 * lanes << 16; a range as two u32):
 *   name, def_file, def_line, def_col, why,
 *   param infos (name, kind, dtype, ndim, then ndim x (u64 extent, name)),
 *   nslots, nmaps, code (u8 op, u32 a, u32 b, u64 imm), params, stmts,
 *   encodes, kparams, launches (fields as declared in the header).
 * A change to it, to launch_ops.def or to abi/dtype.h's codes is a new
 * executable format version (abi/exe_format.h).
 */
#include "abi/launch_program.h"

#include <stdio.h>
#include <string.h>

#include "support/mem.h"
#include "support/wire.h"

static const struct {
  const char *name;
  int pops, pushes;
} OPS[] = {
#define X(name, pops, pushes) {#name, pops, pushes},
#include "abi/launch_ops.def"
#undef X
};

const char *tx_lp_op_name(tx_lp_op op) {
  return (unsigned)op < TX_LP_OP_COUNT ? OPS[op].name : "?";
}

/* ---- building and freeing ------------------------------------------------- */

tx_lp_module *tx_lp_module_new(const tirx_allocator *alloc) {
  tx_lp_module *m = tx_mem_calloc(alloc, 1, sizeof *m);
  if (m && alloc) m->alloc = *alloc;
  return m;
}

tx_lp_func *tx_lp_module_add(tx_lp_module *m) {
  tx_lp_func *p = tx_mem_realloc(&m->alloc, m->funcs, (m->nfuncs + 1) * sizeof *p);
  if (!p) return NULL;
  m->funcs = p;
  memset(&p[m->nfuncs], 0, sizeof *p);
  return &p[m->nfuncs++];
}

void tx_lp_func_clear(const tirx_allocator *a, tx_lp_func *f) {
  tx_mem_free(a, f->name);
  tx_mem_free(a, f->def_file);
  tx_mem_free(a, f->why);
  for (uint32_t i = 0; f->pinfo && i < f->npinfo; i++) {
    tx_lp_param_info *p = &f->pinfo[i];
    for (int32_t d = 0; p->dim_names && d < p->ndim; d++)
      tx_mem_free(a, p->dim_names[d]);
    tx_mem_free(a, (void *)p->dim_names);
    tx_mem_free(a, p->shape);
    tx_mem_free(a, p->name);
  }
  tx_mem_free(a, f->pinfo);
  for (uint32_t i = 0; f->stmts && i < f->nstmts; i++) {
    tx_mem_free(a, f->stmts[i].msg);
    tx_mem_free(a, f->stmts[i].name);
  }
  for (uint32_t i = 0; f->kparams && i < f->nkparams; i++)
    tx_mem_free(a, f->kparams[i].name);
  for (uint32_t i = 0; f->launches && i < f->nlaunches; i++)
    tx_mem_free(a, f->launches[i].kernel);
  tx_mem_free(a, f->code);
  tx_mem_free(a, f->params);
  tx_mem_free(a, f->stmts);
  tx_mem_free(a, f->encodes);
  tx_mem_free(a, f->kparams);
  tx_mem_free(a, f->launches);
  memset(f, 0, sizeof *f);
}

void tx_lp_module_free(tx_lp_module *m) {
  if (!m) return;
  tirx_allocator a = m->alloc;
  for (uint32_t i = 0; i < m->nfuncs; i++)
    tx_lp_func_clear(&a, &m->funcs[i]);
  tx_mem_free(&a, m->funcs);
  tx_mem_free(&a, m);
}

/* ---- writing ----------------------------------------------------------------- */

static void put_dtype(tx_strbuf *o, tx_dtype t) {
  tx_wire_u32(o, (uint32_t)t.code | (uint32_t)t.bits << 8 | (uint32_t)t.lanes << 16);
}

static void put_range(tx_strbuf *o, tx_lp_range r) {
  tx_wire_u32(o, r.begin);
  tx_wire_u32(o, r.end);
}

static void put_pinfo(tx_strbuf *o, const tx_lp_param_info *p) {
  tx_wire_str(o, p->name);
  tx_wire_u32(o, (uint32_t)p->kind);
  put_dtype(o, p->dtype);
  tx_wire_u32(o, (uint32_t)p->ndim);
  for (int32_t d = 0; d < p->ndim; d++) {
    tx_wire_u64(o, (uint64_t)p->shape[d]);
    tx_wire_str(o, p->dim_names[d]);
  }
}

static void put_stmt(tx_strbuf *o, const tx_lp_stmt *s) {
  tx_wire_u8(o, s->kind);
  tx_wire_u8(o, s->got);
  tx_wire_u8(o, s->range_checked);
  put_range(o, s->expr);
  put_range(o, s->lhs);
  tx_wire_u32(o, (uint32_t)s->arg);
  tx_wire_u32(o, (uint32_t)s->slot);
  tx_wire_u32(o, s->index);
  put_dtype(o, s->dtype);
  tx_wire_str(o, s->msg);
  tx_wire_str(o, s->name);
}

static void put_encode(tx_strbuf *o, const tx_lp_encode *e) {
  tx_wire_u32(o, (uint32_t)e->map_slot);
  tx_wire_u32(o, (uint32_t)e->cu_dtype);
  tx_wire_u32(o, (uint32_t)e->elem_bits);
  tx_wire_u32(o, (uint32_t)e->rank);
  put_range(o, e->addr);
  for (int i = 0; i < TX_TENSORMAP_MAX_RANK; i++) {
    put_range(o, e->dims[i]);
    put_range(o, e->box[i]);
    put_range(o, e->elem_strides[i]);
    if (i + 1 < TX_TENSORMAP_MAX_RANK) put_range(o, e->strides[i]);
  }
  put_range(o, e->interleave);
  put_range(o, e->swizzle);
  put_range(o, e->l2_promotion);
  put_range(o, e->oob_fill);
  put_range(o, e->force_dtype);
  tx_wire_u8(o, e->has_force);
}

static void put_launch(tx_strbuf *o, const tx_lp_launch *l) {
  tx_wire_str(o, l->kernel);
  tx_wire_u32(o, l->first_kparam);
  tx_wire_u32(o, l->nkparams);
  for (int d = 0; d < TX_LP_DIMS; d++)
    put_range(o, l->dims[d]);
  for (int d = 0; d < 3; d++)
    tx_wire_u32(o, l->cluster[d]);
}

static void put_func(tx_strbuf *o, const tx_lp_func *f) {
  tx_wire_str(o, f->name);
  tx_wire_str(o, f->def_file);
  tx_wire_u32(o, f->def_line);
  tx_wire_u32(o, f->def_col);
  tx_wire_str(o, f->why);
  tx_wire_u32(o, f->npinfo);
  for (uint32_t i = 0; i < f->npinfo; i++)
    put_pinfo(o, &f->pinfo[i]);
  tx_wire_u32(o, f->nslots);
  tx_wire_u32(o, f->nmaps);
  tx_wire_u32(o, f->ncode);
  for (uint32_t i = 0; i < f->ncode; i++) {
    tx_wire_u8(o, f->code[i].op);
    tx_wire_u32(o, (uint32_t)f->code[i].a);
    tx_wire_u32(o, (uint32_t)f->code[i].b);
    tx_wire_u64(o, (uint64_t)f->code[i].imm.i);
  }
  tx_wire_u32(o, f->nparams);
  for (uint32_t i = 0; i < f->nparams; i++) {
    tx_wire_u32(o, (uint32_t)f->params[i].slot);
    tx_wire_u32(o, (uint32_t)f->params[i].arg);
    tx_wire_u8(o, f->params[i].tensor);
    put_dtype(o, f->params[i].dtype);
  }
  tx_wire_u32(o, f->nstmts);
  for (uint32_t i = 0; i < f->nstmts; i++)
    put_stmt(o, &f->stmts[i]);
  tx_wire_u32(o, f->nencodes);
  for (uint32_t i = 0; i < f->nencodes; i++)
    put_encode(o, &f->encodes[i]);
  tx_wire_u32(o, f->nkparams);
  for (uint32_t i = 0; i < f->nkparams; i++) {
    put_range(o, f->kparams[i].expr);
    put_dtype(o, f->kparams[i].dtype);
    tx_wire_u8(o, f->kparams[i].tensormap);
    tx_wire_str(o, f->kparams[i].name);
  }
  tx_wire_u32(o, f->nlaunches);
  for (uint32_t i = 0; i < f->nlaunches; i++)
    put_launch(o, &f->launches[i]);
}

tirx_status tx_lp_write(const tx_lp_module *m, tx_strbuf *out) {
  tx_wire_u32(out, m->nfuncs);
  for (uint32_t i = 0; i < m->nfuncs; i++)
    put_func(out, &m->funcs[i]);
  return out->failed ? TIRX_ERR_NOMEM : TIRX_OK;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct lp_reader {
  tx_wire_reader w;
  const tirx_allocator *alloc;
  int nomem;
} lp_reader;

/* NULL for a NULL string (and when bad or out of memory). */
static char *get_str(lp_reader *r) {
  uint32_t n = tx_wire_get_u32(&r->w);
  if (n == 0) return NULL;
  const unsigned char *at = tx_wire_take(&r->w, n - 1);
  if (!at) return NULL;
  if (memchr(at, 0, n - 1)) {
    r->w.bad = 1; /* a string with a NUL inside would read as a shorter one */
    return NULL;
  }
  char *s = tx_mem_strndup(r->alloc, (const char *)at, n - 1);
  if (!s) r->nomem = 1;
  return s;
}

static tx_dtype get_dtype(lp_reader *r) {
  uint32_t v = tx_wire_get_u32(&r->w);
  return tx_dt((tx_dtype_code)(v & 0xff), (int)(v >> 8 & 0xff), (int)(v >> 16));
}

static tx_lp_range get_range(lp_reader *r) {
  tx_lp_range g;
  g.begin = tx_wire_get_u32(&r->w);
  g.end = tx_wire_get_u32(&r->w);
  return g;
}

/* A zeroed array of n items of `size` bytes, of which at least `min_bytes`
 * each must still be in the input (so a damaged count cannot ask for more
 * memory than the file could describe). NULL for n == 0 and on failure. */
static void *get_array(lp_reader *r, uint32_t n, size_t size, size_t min_bytes) {
  if (r->w.bad || r->nomem || n == 0) return NULL;
  if (!tx_wire_fits(&r->w, n, min_bytes)) {
    r->w.bad = 1;
    return NULL;
  }
  void *p = tx_mem_calloc(r->alloc, n, size);
  if (!p) r->nomem = 1;
  return p;
}

static int ok(const lp_reader *r) {
  return !r->w.bad && !r->nomem;
}

static void get_pinfo(lp_reader *r, tx_lp_param_info *p) {
  p->name = get_str(r);
  p->kind = (int32_t)tx_wire_get_u32(&r->w);
  p->dtype = get_dtype(r);
  uint32_t nd = tx_wire_get_u32(&r->w);
  if (nd > INT32_MAX) r->w.bad = 1;
  if (!ok(r)) return;
  p->shape = get_array(r, nd, sizeof *p->shape, 12);
  p->dim_names = get_array(r, nd, sizeof *p->dim_names, 12);
  if (nd && (!p->shape || !p->dim_names)) return;
  p->ndim = (int32_t)nd;
  for (uint32_t d = 0; d < nd && ok(r); d++) {
    p->shape[d] = (int64_t)tx_wire_get_u64(&r->w);
    p->dim_names[d] = get_str(r);
  }
}

static void get_stmt(lp_reader *r, tx_lp_stmt *s) {
  s->kind = tx_wire_get_u8(&r->w);
  s->got = tx_wire_get_u8(&r->w);
  s->range_checked = tx_wire_get_u8(&r->w);
  s->expr = get_range(r);
  s->lhs = get_range(r);
  s->arg = (int32_t)tx_wire_get_u32(&r->w);
  s->slot = (int32_t)tx_wire_get_u32(&r->w);
  s->index = tx_wire_get_u32(&r->w);
  s->dtype = get_dtype(r);
  s->msg = get_str(r);
  s->name = get_str(r);
}

static void get_encode(lp_reader *r, tx_lp_encode *e) {
  e->map_slot = (int32_t)tx_wire_get_u32(&r->w);
  e->cu_dtype = (int32_t)tx_wire_get_u32(&r->w);
  e->elem_bits = (int32_t)tx_wire_get_u32(&r->w);
  e->rank = (int32_t)tx_wire_get_u32(&r->w);
  e->addr = get_range(r);
  for (int i = 0; i < TX_TENSORMAP_MAX_RANK; i++) {
    e->dims[i] = get_range(r);
    e->box[i] = get_range(r);
    e->elem_strides[i] = get_range(r);
    if (i + 1 < TX_TENSORMAP_MAX_RANK) e->strides[i] = get_range(r);
  }
  e->interleave = get_range(r);
  e->swizzle = get_range(r);
  e->l2_promotion = get_range(r);
  e->oob_fill = get_range(r);
  e->force_dtype = get_range(r);
  e->has_force = tx_wire_get_u8(&r->w);
}

static void get_launch(lp_reader *r, tx_lp_launch *l) {
  l->kernel = get_str(r);
  l->first_kparam = tx_wire_get_u32(&r->w);
  l->nkparams = tx_wire_get_u32(&r->w);
  for (int d = 0; d < TX_LP_DIMS; d++)
    l->dims[d] = get_range(r);
  for (int d = 0; d < 3; d++)
    l->cluster[d] = tx_wire_get_u32(&r->w);
}

/* Read a count and its array into *arr / *n; n is set only once the array
 * exists, so that freeing a half-read function frees what is there. */
#define GET_ARRAY(r, arr, n, min_bytes)                                                            \
  do {                                                                                             \
    uint32_t count_ = tx_wire_get_u32(&(r)->w);                                                    \
    (arr) = get_array((r), count_, sizeof *(arr), (min_bytes));                                    \
    if ((arr)) (n) = count_;                                                                       \
  } while (0)

static void get_func(lp_reader *r, tx_lp_func *f) {
  f->name = get_str(r);
  f->def_file = get_str(r);
  f->def_line = tx_wire_get_u32(&r->w);
  f->def_col = tx_wire_get_u32(&r->w);
  f->why = get_str(r);
  GET_ARRAY(r, f->pinfo, f->npinfo, 16);
  for (uint32_t i = 0; i < f->npinfo && ok(r); i++)
    get_pinfo(r, &f->pinfo[i]);
  f->nslots = tx_wire_get_u32(&r->w);
  f->nmaps = tx_wire_get_u32(&r->w);
  GET_ARRAY(r, f->code, f->ncode, 17);
  for (uint32_t i = 0; i < f->ncode && ok(r); i++) {
    f->code[i].op = tx_wire_get_u8(&r->w);
    f->code[i].a = (int32_t)tx_wire_get_u32(&r->w);
    f->code[i].b = (int32_t)tx_wire_get_u32(&r->w);
    f->code[i].imm.i = (int64_t)tx_wire_get_u64(&r->w);
  }
  GET_ARRAY(r, f->params, f->nparams, 13);
  for (uint32_t i = 0; i < f->nparams && ok(r); i++) {
    f->params[i].slot = (int32_t)tx_wire_get_u32(&r->w);
    f->params[i].arg = (int32_t)tx_wire_get_u32(&r->w);
    f->params[i].tensor = tx_wire_get_u8(&r->w);
    f->params[i].dtype = get_dtype(r);
  }
  GET_ARRAY(r, f->stmts, f->nstmts, 43);
  for (uint32_t i = 0; i < f->nstmts && ok(r); i++)
    get_stmt(r, &f->stmts[i]);
  GET_ARRAY(r, f->encodes, f->nencodes, 217);
  for (uint32_t i = 0; i < f->nencodes && ok(r); i++)
    get_encode(r, &f->encodes[i]);
  GET_ARRAY(r, f->kparams, f->nkparams, 17);
  for (uint32_t i = 0; i < f->nkparams && ok(r); i++) {
    f->kparams[i].expr = get_range(r);
    f->kparams[i].dtype = get_dtype(r);
    f->kparams[i].tensormap = tx_wire_get_u8(&r->w);
    f->kparams[i].name = get_str(r);
  }
  GET_ARRAY(r, f->launches, f->nlaunches, 80);
  for (uint32_t i = 0; i < f->nlaunches && ok(r); i++)
    get_launch(r, &f->launches[i]);
}

tirx_status tx_lp_read(const void *data, size_t len, const tirx_allocator *alloc,
                       tx_lp_module **out, char *why, size_t cap) {
  *out = NULL;
  tx_lp_module *m = tx_lp_module_new(alloc);
  if (!m) {
    snprintf(why, cap, "out of memory");
    return TIRX_ERR_NOMEM;
  }
  lp_reader r = {{data, (const unsigned char *)data + len, 0}, &m->alloc, 0};
  uint32_t n = tx_wire_get_u32(&r.w);
  if (!tx_wire_fits(&r.w, n, 32)) r.w.bad = 1;
  for (uint32_t i = 0; i < n && ok(&r); i++) {
    tx_lp_func *f = tx_lp_module_add(m);
    if (!f) {
      r.nomem = 1;
      break;
    }
    get_func(&r, f);
  }
  if (ok(&r) && r.w.p != r.w.end) r.w.bad = 1; /* trailing bytes: not what was written */
  char vwhy[256] = "";
  for (uint32_t i = 0; ok(&r) && i < m->nfuncs; i++)
    if (!tx_lp_verify(&m->funcs[i], vwhy, sizeof vwhy)) {
      snprintf(why, cap, "launch program of '%s': %s", m->funcs[i].name ? m->funcs[i].name : "?",
               vwhy);
      tx_lp_module_free(m);
      return TIRX_ERR_INPUT;
    }
  if (!ok(&r)) {
    tirx_status st = r.nomem ? TIRX_ERR_NOMEM : TIRX_ERR_INPUT;
    snprintf(why, cap, "%s", r.nomem ? "out of memory" : "truncated or malformed launch program");
    tx_lp_module_free(m);
    return st;
  }
  *out = m;
  return TIRX_OK;
}

/* ---- verifying ---------------------------------------------------------------- */

typedef struct lp_verifier {
  const tx_lp_func *f;
  char *why;
  size_t cap;
  int failed;
} lp_verifier;

static int vfail(lp_verifier *v, const char *what, uint32_t at) {
  if (!v->failed) snprintf(v->why, v->cap, "%s (at %u)", what, at);
  v->failed = 1;
  return 0;
}

static int scalar_dtype_ok(tx_dtype t) {
  return t.code <= DT_VOID && t.lanes == 1 && t.scalable == 0;
}

/* One whole expression: inside the code, no stack underflow, no deeper
 * than TX_LP_MAX_STACK, exactly one value left; operands in range. */
static int expr_ok(lp_verifier *v, tx_lp_range g) {
  const tx_lp_func *f = v->f;
  if (g.begin >= g.end || g.end > f->ncode) return vfail(v, "expression out of the code", g.begin);
  int depth = 0;
  for (uint32_t pc = g.begin; pc < g.end; pc++) {
    const tx_lp_ins *in = &f->code[pc];
    if (in->op >= TX_LP_OP_COUNT) return vfail(v, "unknown instruction", pc);
    if (depth < OPS[in->op].pops) return vfail(v, "stack underflow", pc);
    depth += OPS[in->op].pushes - OPS[in->op].pops;
    if (depth > TX_LP_MAX_STACK) return vfail(v, "expression too deep", pc);
    if (in->op == TX_LP_LOAD && (in->a < 0 || (uint32_t)in->a >= f->nslots))
      return vfail(v, "slot out of range", pc);
    if (in->op == TX_LP_WRAP && (in->a < 1 || in->a > 63))
      return vfail(v, "wrap width out of range", pc);
  }
  return depth == 1 ? 1 : vfail(v, "expression leaves no single value", g.begin);
}

static int slot_ok(lp_verifier *v, int32_t slot, uint32_t at) {
  return slot >= 0 && (uint32_t)slot < v->f->nslots ? 1 : vfail(v, "slot out of range", at);
}

static int stmt_ok(lp_verifier *v, const tx_lp_stmt *s, uint32_t i) {
  const tx_lp_func *f = v->f;
  switch ((tx_lp_stmt_kind)s->kind) {
  case TX_LP_CHECK:
    if (s->got >= TX_LP_GOT_COUNT || !s->msg) return vfail(v, "malformed check", i);
    if ((s->got == TX_LP_GOT_INT || s->got == TX_LP_GOT_FLOAT) && !expr_ok(v, s->lhs)) return 0;
    return expr_ok(v, s->expr);
  case TX_LP_BIND:
    if (!scalar_dtype_ok(s->dtype)) return vfail(v, "binding of a bad dtype", i);
    return slot_ok(v, s->slot, i) && expr_ok(v, s->expr);
  case TX_LP_MAP:
    if (s->index >= TX_MAX_KERNEL_TENSORMAPS || s->index >= f->nmaps)
      return vfail(v, "tensor map out of range", i);
    return slot_ok(v, s->slot, i);
  case TX_LP_ENCODE:
    return s->index < f->nencodes ? 1 : vfail(v, "encode out of range", i);
  case TX_LP_LAUNCH:
    return s->index < f->nlaunches ? 1 : vfail(v, "launch out of range", i);
  case TX_LP_STMT_COUNT:
    break;
  }
  return vfail(v, "unknown statement", i);
}

static int encode_ok(lp_verifier *v, const tx_lp_encode *e, uint32_t i) {
  if (e->rank < 1 || e->rank > TX_TENSORMAP_MAX_RANK) return vfail(v, "tensor map rank", i);
  if (!slot_ok(v, e->map_slot, i) || !expr_ok(v, e->addr)) return 0;
  for (int k = 0; k < e->rank; k++)
    if (!expr_ok(v, e->dims[k]) || !expr_ok(v, e->box[k]) || !expr_ok(v, e->elem_strides[k]) ||
        (k + 1 < e->rank && !expr_ok(v, e->strides[k])))
      return 0;
  return expr_ok(v, e->interleave) && expr_ok(v, e->swizzle) && expr_ok(v, e->l2_promotion) &&
         expr_ok(v, e->oob_fill) && (!e->has_force || expr_ok(v, e->force_dtype));
}

static int launch_ok(lp_verifier *v, const tx_lp_launch *l, uint32_t i) {
  const tx_lp_func *f = v->f;
  if (!l->kernel) return vfail(v, "launch without a kernel", i);
  if (l->first_kparam > f->nkparams || l->nkparams > f->nkparams - l->first_kparam ||
      l->nkparams > TX_MAX_KERNEL_PARAMS)
    return vfail(v, "kernel parameters out of range", i);
  for (int d = 0; d < TX_LP_DIMS; d++)
    if (!expr_ok(v, l->dims[d])) return 0;
  return 1;
}

int tx_lp_verify(const tx_lp_func *f, char *why, size_t cap) {
  lp_verifier v = {f, why, cap, 0};
  if (!f->name) return vfail(&v, "function without a name", 0);
  if (f->nslots > TX_LP_MAX_SLOTS) return vfail(&v, "too many slots", f->nslots);
  if (f->nmaps > TX_MAX_KERNEL_TENSORMAPS) return vfail(&v, "too many tensor maps", f->nmaps);
  for (uint32_t i = 0; i < f->npinfo; i++)
    if (!f->pinfo[i].name || f->pinfo[i].ndim < 0) return vfail(&v, "malformed parameter", i);
  for (uint32_t i = 0; i < f->nparams; i++)
    if (!slot_ok(&v, f->params[i].slot, i) || !scalar_dtype_ok(f->params[i].dtype))
      return vfail(&v, "malformed parameter binding", i);
  for (uint32_t i = 0; i < f->nstmts; i++)
    if (!stmt_ok(&v, &f->stmts[i], i)) return 0;
  for (uint32_t i = 0; i < f->nencodes; i++)
    if (!encode_ok(&v, &f->encodes[i], i)) return 0;
  for (uint32_t i = 0; i < f->nkparams; i++)
    if (!expr_ok(&v, f->kparams[i].expr) || !scalar_dtype_ok(f->kparams[i].dtype)) return 0;
  for (uint32_t i = 0; i < f->nlaunches; i++)
    if (!launch_ok(&v, &f->launches[i], i)) return 0;
  return 1;
}
