/* clr kernel lab: times an experimental kernel (bench/lab/iv.cl) against
 * the shipped GPU kernel clr_resample_table_tc2 (kernels/resample.cl) on
 * one problem, both checked against a float64 evaluation. This is where
 * the interleaved-window layout of clr_resample_table_iv was tried first
 * (docs/bench/gpu-lab-frames.txt). Not part of the Meson build:
 *
 *   gcc -O2 -o build/lab bench/lab/lab.c -lOpenCL -lm
 *   build/lab CHANNELS I D TAPS OUT_FRAMES
 *
 * env: F (frames a work-item: clr_lab_ivf), V4 (float4 channel groups a
 * work-item: clr_lab_iv), LX, LY (work-group shape), OPTS (build options,
 * e.g. -DCLR_FACC for float accumulation). Run from the project root. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { cl_int s_ = (x); if (s_) { fprintf (stderr, "%s: %d\n", #x, s_); exit (1); } } while (0)
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static char *slurp (const char *p) { FILE *f = fopen (p, "rb"); fseek (f, 0, SEEK_END); long n = ftell (f); rewind (f); char *s = malloc (n + 1); fread (s, 1, n, f); s[n] = 0; fclose (f); return s; }

int main (int argc, char **argv)
{
  unsigned C = atoi (argv[1]), I = atoi (argv[2]), D = atoi (argv[3]), K = atoi (argv[4]);
  unsigned N = atoi (argv[5]);
  unsigned V4 = getenv ("V4") ? atoi (getenv ("V4")) : 1;
  size_t in_frames = (size_t) ((double) N * D / I) + K + 64;
  float *xi = malloc (in_frames * C * 4), *xp = malloc (in_frames * C * 4);
  float *hp = malloc ((size_t) I * K * 4), *ht = malloc ((size_t) I * K * 4);
  float *y1 = malloc ((size_t) N * C * 4), *y2 = malloc ((size_t) N * C * 4);
  cl_platform_id pl; cl_device_id dev; cl_int st;
  srand (1);
  for (size_t f = 0; f < in_frames; f++)
    for (unsigned c = 0; c < C; c++) {
      float v = (float) (rand () / (double) RAND_MAX * 2 - 1);
      xi[f * C + c] = v; xp[c * in_frames + f] = v;
    }
  for (unsigned p = 0; p < I; p++)
    for (unsigned k = 0; k < K; k++) {
      float v = (float) ((rand () / (double) RAND_MAX * 2 - 1) / K * 4);
      hp[p * K + k] = v; ht[k * I + p] = v;
    }
  {
    /* the first GPU of any platform, else the first device */
    cl_platform_id pls[8]; cl_uint np = 0, j;
    CK (clGetPlatformIDs (8, pls, &np));
    for (j = 0; j < np; j++)
      if (clGetDeviceIDs (pls[j], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS)
        break;
    if (j == np)
      CK (clGetDeviceIDs (pls[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    pl = pls[j == np ? 0 : j];
    (void) pl;
  }
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &st); CK (st);
  cl_command_queue q = clCreateCommandQueue (ctx, dev, 0, &st); CK (st);
  char *src[2] = { slurp ("kernels/resample.cl"), slurp ("bench/lab/iv.cl") };
  char opt[256];
  snprintf (opt, sizeof opt, "-DCLR_FMT_F32 -DCLR_HAVE_FP64 -DCLR_CPI=8 -DCLR_V4=%u -DCLR_F=%s %s", V4, getenv ("F") ? getenv ("F") : "1",
      getenv ("OPTS") ? getenv ("OPTS") : "");
  cl_program prog[2];
  for (int j = 0; j < 2; j++) {
    prog[j] = clCreateProgramWithSource (ctx, 1, (const char **) &src[j], NULL, &st); CK (st);
    if (clBuildProgram (prog[j], 1, &dev, opt, NULL, NULL)) {
      char log[20000]; clGetProgramBuildInfo (prog[j], dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
      fprintf (stderr, "%s\n", log); return 1;
    }
  }
  cl_kernel k_tc2 = clCreateKernel (prog[0], "clr_resample_table_tc2", &st); CK (st);
  cl_kernel k_iv = clCreateKernel (prog[1], getenv ("F") ? "clr_lab_ivf" : "clr_lab_iv", &st); CK (st);
  unsigned F = getenv ("F") ? atoi (getenv ("F")) : 1;
  cl_uint pad = (cl_uint) (((F - 1) * (unsigned long long) D + I - 1) / I);
  cl_uint span = (K + pad + 3) / 4 * 4, lead = pad, rowlen = span + lead;
  float *hpad = calloc ((size_t) I * rowlen, 4);
  for (unsigned p = 0; p < I; p++)
    for (unsigned k = 0; k < K; k++)
      hpad[(size_t) p * rowlen + lead + k] = hp[p * K + k];
  cl_mem b_xi = clCreateBuffer (ctx, CL_MEM_COPY_HOST_PTR, in_frames * C * 4, xi, &st); CK (st);
  cl_mem b_xp = clCreateBuffer (ctx, CL_MEM_COPY_HOST_PTR, in_frames * C * 4, xp, &st); CK (st);
  cl_mem b_hp = clCreateBuffer (ctx, CL_MEM_COPY_HOST_PTR, (size_t) I * K * 4, hp, &st); CK (st);
  cl_mem b_ht = clCreateBuffer (ctx, CL_MEM_COPY_HOST_PTR, (size_t) I * K * 4, ht, &st); CK (st);
  cl_mem b_y = clCreateBuffer (ctx, 0, (size_t) N * C * 4, NULL, &st); CK (st);
  cl_ulong lI = I, lD = D, ft = 0, ph = 0, wc = in_frames, of = C, oc = 1;
  cl_uint ch = C, taps = K, n = N;
  /* tc2: planar window, tap-major table, interleaved output */
  int a = 0;
  CK (clSetKernelArg (k_tc2, a++, sizeof (cl_mem), &b_xp));
  CK (clSetKernelArg (k_tc2, a++, sizeof (cl_mem), &b_y));
  CK (clSetKernelArg (k_tc2, a++, sizeof (cl_mem), &b_ht));
  CK (clSetKernelArg (k_tc2, a++, 4, &ch)); CK (clSetKernelArg (k_tc2, a++, 4, &taps));
  CK (clSetKernelArg (k_tc2, a++, 8, &lI)); CK (clSetKernelArg (k_tc2, a++, 8, &lD));
  CK (clSetKernelArg (k_tc2, a++, 8, &ft)); CK (clSetKernelArg (k_tc2, a++, 8, &ph));
  CK (clSetKernelArg (k_tc2, a++, 4, &n)); CK (clSetKernelArg (k_tc2, a++, 8, &wc));
  CK (clSetKernelArg (k_tc2, a++, 8, &of)); CK (clSetKernelArg (k_tc2, a++, 8, &oc));
  a = 0;
  CK (clSetKernelArg (k_iv, a++, sizeof (cl_mem), &b_xi));
  CK (clSetKernelArg (k_iv, a++, sizeof (cl_mem), &b_y));
  cl_mem b_hpad = clCreateBuffer (ctx, CL_MEM_COPY_HOST_PTR, (size_t) I * rowlen * 4, hpad, &st); CK (st);
  CK (clSetKernelArg (k_iv, a++, sizeof (cl_mem), F > 1 || getenv ("F") ? &b_hpad : &b_hp));
  CK (clSetKernelArg (k_iv, a++, 4, &ch)); CK (clSetKernelArg (k_iv, a++, 4, getenv ("F") ? &span : &taps));
  CK (clSetKernelArg (k_iv, a++, 8, &lI)); CK (clSetKernelArg (k_iv, a++, 8, &lD));
  CK (clSetKernelArg (k_iv, a++, 8, &ft)); CK (clSetKernelArg (k_iv, a++, 8, &ph));
  CK (clSetKernelArg (k_iv, a++, 4, &n));
  if (getenv ("F")) {
    CK (clSetKernelArg (k_iv, a++, 4, &lead)); CK (clSetKernelArg (k_iv, a++, 4, &rowlen));
  }
  size_t items2 = (N + 1) / 2;
  size_t g_tc2[2] = { (items2 + 255) / 256 * 256, (C + 7) / 8 }, l_tc2[2] = { 256, 1 };
  size_t lx = getenv ("LX") ? atoi (getenv ("LX")) : C / 4 / V4;
  size_t ly = getenv ("LY") ? atoi (getenv ("LY")) : 256 / lx;
  size_t ny = (N + F - 1) / F;
  size_t g_iv[2] = { (C / 4 / V4 + lx - 1) / lx * lx, (ny + ly - 1) / ly * ly }, l_iv[2] = { lx, ly };
  for (int j = 0; j < 2; j++) {
    cl_kernel kk = j ? k_iv : k_tc2;
    size_t *g = j ? g_iv : g_tc2, *l = j ? l_iv : l_tc2;
    float *y = j ? y2 : y1;
    CK (clEnqueueNDRangeKernel (q, kk, 2, NULL, g, l, 0, NULL, NULL));
    CK (clFinish (q));
    int iters = 20; double t = now ();
    for (int r = 0; r < iters; r++)
      CK (clEnqueueNDRangeKernel (q, kk, 2, NULL, g, l, 0, NULL, NULL));
    CK (clFinish (q));
    t = (now () - t) / iters;
    CK (clEnqueueReadBuffer (q, b_y, CL_TRUE, 0, (size_t) N * C * 4, y, 0, NULL, NULL));
    /* error against double on 2000 frames spread out */
    double worst = 0;
    for (unsigned s = 0; s < 300; s++) {
      size_t m = (size_t) s * (N - 1) / 299;
      unsigned long long pos = (unsigned long long) m * D;
      size_t adv = pos / I; unsigned p = pos % I;
      for (unsigned c = 0; c < C; c++) {
        double acc = 0;
        for (unsigned k = 0; k < K; k++) acc += (double) hp[p * K + k] * xi[(adv + k) * C + c];
        worst = fmax (worst, fabs (acc - y[m * C + c]));
      }
    }
    char dn[128]; clGetDeviceInfo (dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
    printf ("%.12s %-4s %s C=%u I=%u D=%u K=%u V4=%u local %zux%zu: %.3f ms, %.2f G out samples/s, %.0f GMAC/s, max err %.1f dB\n",
        dn, j ? "iv" : "tc2", getenv ("OPTS") ? getenv ("OPTS") : "", C, I, D, K, V4, l[0], l[1], t * 1e3, (double) N * C / t / 1e9,
        (double) N * C * K / t / 1e9, 20 * log10 (worst + 1e-30));
  }
  return 0;
}
