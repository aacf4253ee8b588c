/* clresample: OpenCL faults the tests control, over the real ICD loader.
 *
 * A library for LD_PRELOAD: every OpenCL call the plugin makes that
 * returns a status (cl_int) or takes an errcode_ret goes through here,
 * is counted, and either fails as told or passes to the real function
 * (dlsym (RTLD_NEXT, ...), else libOpenCL.so.1). A failed call never
 * reaches the real function: it returns the fault's code, or for the
 * functions that create something sets *errcode_ret to it and returns
 * NULL. Calls before the first fault pass through untouched.
 *
 * Read once, when the library is loaded:
 *
 *   CLR_FAULT=NAME:N[,NAME:N...]  fail the N-th call (1-based, counted
 *                                 per function over the whole process)
 *                                 of NAME; NAME:N+ the N-th and every
 *                                 later one (a lost device); *:N+ every
 *                                 wrapped function from its own N-th call;
 *                                 all:N+ every wrapped call from the N-th
 *                                 of all of them, counted together (a
 *                                 device lost at one moment: every
 *                                 function fails from then on, the rarely
 *                                 called ones too); NAME:N! every
 *                                 wrapped call from NAME's N-th on (a
 *                                 device lost at a step of the program's
 *                                 own, its 30th launch say, not at a call
 *                                 count that depends on how the threads
 *                                 met)
 *   CLR_FAULT_DEVICE=K            count and fail only the calls on the
 *                                 K-th device (0-based, over all platforms
 *                                 in ICD order, as the elements' device=K):
 *                                 calls whose device, queue, context,
 *                                 buffer, program, kernel or event belongs
 *                                 to it (asked of OpenCL at each call).
 *                                 Calls on other devices, and those of no
 *                                 device (clGetPlatformIDs,
 *                                 clGetDeviceIDs, clGetPlatformInfo), pass
 *                                 uncounted: one of two devices is lost
 *   CLR_FAULT_RANDOM=P            each wrapped call fails with probability
 *   CLR_FAULT_SEED=S              P, the same calls for the same seed and
 *                                 the same order of calls (default seed 1)
 *   CLR_FAULT_CODE=C              the code a failed call gives (default
 *                                 CL_OUT_OF_RESOURCES, -5)
 *   CLR_FAULT_LOG=1               one line on stderr per injected fault:
 *                                 "clr-fault: failing clFlush call 30"
 *   CLR_FAULT_STATS=1             every function's count of calls on
 *                                 stderr at exit (to pick an N)
 *
 * clr_fault_first_us (), for a program that finds it (dlsym), tells when
 * the first fault was injected (g_get_monotonic_time ()'s clock, in us;
 * 0: none yet): how long the program took to answer it.
 * clr_fault_calls (NAME) tells how many calls of NAME were counted so far
 * (to place a fault after what a step of the program called).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>

#define FUNCS(X) \
  X (clBuildProgram) \
  X (clCreateBuffer) \
  X (clCreateCommandQueue) \
  X (clCreateCommandQueueWithProperties) \
  X (clCreateContext) \
  X (clCreateKernel) \
  X (clCreateProgramWithBinary) \
  X (clCreateProgramWithSource) \
  X (clEnqueueCopyBuffer) \
  X (clEnqueueFillBuffer) \
  X (clEnqueueMapBuffer) \
  X (clEnqueueNDRangeKernel) \
  X (clEnqueueReadBuffer) \
  X (clEnqueueReadBufferRect) \
  X (clEnqueueSVMMap) \
  X (clEnqueueSVMUnmap) \
  X (clEnqueueUnmapMemObject) \
  X (clEnqueueWriteBuffer) \
  X (clEnqueueWriteBufferRect) \
  X (clFinish) \
  X (clFlush) \
  X (clGetDeviceIDs) \
  X (clGetDeviceInfo) \
  X (clGetEventInfo) \
  X (clGetEventProfilingInfo) \
  X (clGetKernelWorkGroupInfo) \
  X (clGetMemObjectInfo) \
  X (clGetPlatformIDs) \
  X (clGetPlatformInfo) \
  X (clGetProgramBuildInfo) \
  X (clGetProgramInfo) \
  X (clReleaseCommandQueue) \
  X (clReleaseContext) \
  X (clReleaseEvent) \
  X (clReleaseKernel) \
  X (clReleaseMemObject) \
  X (clReleaseProgram) \
  X (clRetainEvent) \
  X (clSetKernelArg) \
  X (clSetKernelArgSVMPointer) \
  X (clWaitForEvents)

#define ENUM(f) F_##f,
#define NAME(f) #f,
enum
{
  FUNCS (ENUM) N_FUNCS
};
static const char *const names[N_FUNCS] = { FUNCS (NAME) };

#define MAX_RULES 64
/* Rule.func besides a function's index */
#define ANY_FUNC -1             /* *: each function, its own count */
#define ALL_CALLS -3            /* all: every call, counted together */

typedef struct
{
  int func;                     /* a function, ANY_FUNC or ALL_CALLS */
  unsigned long n;
  int from;                     /* N+ */
  int all_from;                 /* N!: then every call */
} Rule;

static Rule rules[MAX_RULES];
static int n_rules;
static double random_p;
static uint64_t seed = 1;
static cl_int code = CL_OUT_OF_RESOURCES;
static int log_faults, stats;

static atomic_ulong counts[N_FUNCS];
static atomic_ulong sequence;   /* every wrapped call, for the random mode */
static atomic_ulong all_calls;  /* every wrapped call, for all:N */
static void *_Atomic reals[N_FUNCS];
static atomic_llong first_us;   /* clr_fault_first_us () */
static atomic_int lost;         /* an N! rule was met */

/* CLR_FAULT_DEVICE: its index (-1: every call counts), and the device */
static long target_index = -1;
static cl_device_id target;
static pthread_once_t target_once = PTHREAD_ONCE_INIT;

static int
func_index (const char *name, size_t len)
{
  int i;

  for (i = 0; i < N_FUNCS; i++)
    if (strlen (names[i]) == len && !strncmp (names[i], name, len))
      return i;
  return -2;
}

static void
parse_rules (const char *spec)
{
  const char *p = spec;

  while (*p) {
    const char *end = p + strcspn (p, ",");
    const char *colon = memchr (p, ':', end - p);
    char *after;
    Rule r;

    if (!colon) {
      fprintf (stderr, "clr-fault: no ':N' in CLR_FAULT entry '%.*s'\n",
          (int) (end - p), p);
      abort ();
    }
    r.func = (colon - p == 1 && *p == '*') ? ANY_FUNC :
        (colon - p == 3 && !strncmp (p, "all", 3)) ? ALL_CALLS :
        func_index (p, colon - p);
    if (r.func == -2) {
      fprintf (stderr, "clr-fault: CLR_FAULT names '%.*s', which is not "
          "wrapped\n", (int) (colon - p), p);
      abort ();
    }
    r.n = strtoul (colon + 1, &after, 10);
    r.from = (*after == '+');
    r.all_from = (*after == '!');
    if (r.from || r.all_from)
      after++;
    if (r.n == 0 || after != end || n_rules == MAX_RULES
        || (r.all_from && r.func < 0)) {
      fprintf (stderr, "clr-fault: bad CLR_FAULT entry '%.*s'\n",
          (int) (end - p), p);
      abort ();
    }
    rules[n_rules++] = r;
    p = *end ? end + 1 : end;
  }
}

static void
print_stats (void)
{
  int i;

  for (i = 0; i < N_FUNCS; i++)
    if (atomic_load (&counts[i]))
      fprintf (stderr, "clr-fault: %s called %lu times\n", names[i],
          atomic_load (&counts[i]));
}

__attribute__ ((constructor))
static void
clr_fault_init (void)
{
  const char *s;

  if ((s = getenv ("CLR_FAULT")) && *s)
    parse_rules (s);
  if ((s = getenv ("CLR_FAULT_RANDOM")) && *s)
    random_p = strtod (s, NULL);
  if ((s = getenv ("CLR_FAULT_SEED")) && *s)
    seed = strtoull (s, NULL, 10);
  if ((s = getenv ("CLR_FAULT_CODE")) && *s)
    code = (cl_int) strtol (s, NULL, 10);
  if ((s = getenv ("CLR_FAULT_DEVICE")) && *s)
    target_index = strtol (s, NULL, 10);
  log_faults = (s = getenv ("CLR_FAULT_LOG")) && *s && strcmp (s, "0");
  stats = (s = getenv ("CLR_FAULT_STATS")) && *s && strcmp (s, "0");
  if (stats)
    atexit (print_stats);
}

/* splitmix64: a call's draw from the seed and its place in the order */
static uint64_t
mix (uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static long long
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long long clr_fault_first_us (void);

long long
clr_fault_first_us (void)
{
  return atomic_load (&first_us);
}

unsigned long clr_fault_calls (const char *name);

unsigned long
clr_fault_calls (const char *name)
{
  const int func = func_index (name, strlen (name));

  return func >= 0 ? atomic_load (&counts[func]) : 0;
}

/* Counts this call of func; whether it is to fail */
static int
fault_hit (int func)
{
  unsigned long n = atomic_fetch_add (&counts[func], 1) + 1;
  unsigned long all = atomic_fetch_add (&all_calls, 1) + 1;
  int i, hit = atomic_load (&lost);

  for (i = 0; i < n_rules && !hit; i++) {
    unsigned long k = rules[i].func == ALL_CALLS ? all : n;

    if (rules[i].func == ANY_FUNC || rules[i].func == ALL_CALLS
        || rules[i].func == func)
      hit = rules[i].from ? k >= rules[i].n : k == rules[i].n;
    if (hit && rules[i].all_from)
      atomic_store (&lost, 1);
  }
  if (!hit && random_p > 0) {
    uint64_t k = atomic_fetch_add (&sequence, 1);
    double u = (mix (seed * 0x2545f4914f6cdd1dull ^ mix (k)) >> 11)
        * (1.0 / 9007199254740992.0);

    hit = u < random_p;
  }
  if (hit) {
    long long zero = 0;

    atomic_compare_exchange_strong (&first_us, &zero, now_us ());
  }
  if (hit && log_faults)
    fprintf (stderr, "clr-fault: failing %s call %lu\n", names[func], n);
  return hit;
}

/* The real function: the next definition after this library's, else the
 * loader's own (where it was loaded only in a plugin's local scope) */
static void *
real_sym (int func)
{
  void *p = atomic_load (&reals[func]);

  if (!p) {
    p = dlsym (RTLD_NEXT, names[func]);
    if (!p) {
      void *lib = dlopen ("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);

      if (lib)
        p = dlsym (lib, names[func]);
    }
    if (!p) {
      fprintf (stderr, "clr-fault: no real %s\n", names[func]);
      abort ();
    }
    atomic_store (&reals[func], p);
  }
  return p;
}

#define REAL(f) ((__typeof__ (&f)) real_sym (F_##f))

/* ---- CLR_FAULT_DEVICE: which device a call is on ---- */

/* The real query functions that are not wrapped (the wrapped ones are
 * called through REAL, uncounted) */
static void *
real_query (const char *name)
{
  void *p = dlsym (RTLD_NEXT, name);

  if (!p) {
    void *lib = dlopen ("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);

    if (lib)
      p = dlsym (lib, name);
  }
  if (!p) {
    fprintf (stderr, "clr-fault: no real %s\n", name);
    abort ();
  }
  return p;
}

#define QUERY(f) ((__typeof__ (&f)) real_query (#f))

static void
find_target (void)
{
  cl_platform_id platforms[16];
  cl_uint n_platforms = 0, p;
  long k = target_index;

  if (REAL (clGetPlatformIDs) (16, platforms, &n_platforms) != CL_SUCCESS)
    n_platforms = 0;
  for (p = 0; p < n_platforms && p < 16 && !target; p++) {
    cl_device_id devices[64];
    cl_uint n = 0;

    if (REAL (clGetDeviceIDs) (platforms[p], CL_DEVICE_TYPE_ALL, 64, devices,
            &n) != CL_SUCCESS)
      continue;
    if (n > 64)
      n = 64;
    if (k < (long) n)
      target = devices[k];
    k -= n;
  }
  if (!target) {
    fprintf (stderr, "clr-fault: CLR_FAULT_DEVICE=%ld: no such device\n",
        target_index);
    abort ();
  }
}

static cl_device_id
device_of_context (cl_context ctx)
{
  cl_device_id devices[16];
  size_t size = 0;

  if (!ctx || QUERY (clGetContextInfo) (ctx, CL_CONTEXT_DEVICES,
          sizeof devices, devices, &size) != CL_SUCCESS || size == 0)
    return NULL;
  return devices[0];
}

static cl_device_id
device_of_queue (cl_command_queue q)
{
  cl_device_id d = NULL;

  if (q)
    QUERY (clGetCommandQueueInfo) (q, CL_QUEUE_DEVICE, sizeof d, &d, NULL);
  return d;
}

static cl_device_id
device_of_mem (cl_mem m)
{
  cl_context ctx = NULL;

  if (m)
    REAL (clGetMemObjectInfo) (m, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
  return device_of_context (ctx);
}

static cl_device_id
device_of_program (cl_program p)
{
  cl_context ctx = NULL;

  if (p)
    REAL (clGetProgramInfo) (p, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL);
  return device_of_context (ctx);
}

static cl_device_id
device_of_kernel (cl_kernel k)
{
  cl_context ctx = NULL;

  if (k)
    QUERY (clGetKernelInfo) (k, CL_KERNEL_CONTEXT, sizeof ctx, &ctx, NULL);
  return device_of_context (ctx);
}

static cl_device_id
device_of_event (cl_event e)
{
  cl_command_queue q = NULL;
  cl_context ctx = NULL;

  if (!e)
    return NULL;
  REAL (clGetEventInfo) (e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL);
  if (q)
    return device_of_queue (q);
  REAL (clGetEventInfo) (e, CL_EVENT_CONTEXT, sizeof ctx, &ctx, NULL);
  return device_of_context (ctx);
}

/* Whether a call on device d (NULL: of no device) is one the rules see */
static int
on_target (cl_device_id d)
{
  pthread_once (&target_once, find_target);
  return d && d == target;
}

/* The device expression is evaluated only under CLR_FAULT_DEVICE */
#define SEEN(f, dev) \
  ((target_index < 0 || on_target (dev)) && fault_hit (F_##f))
/* a function returning a status, on dev */
#define STATUS(f, dev) \
  if (SEEN (f, dev)) \
    return code
/* one creating something: NULL and *errcode_ret */
#define CREATE(f, dev, errcode_ret) \
  if (SEEN (f, dev)) { \
    if (errcode_ret) \
      *(errcode_ret) = code; \
    return NULL; \
  }

CL_API_ENTRY cl_int CL_API_CALL
clBuildProgram (cl_program program, cl_uint num_devices,
    const cl_device_id * device_list, const char *options,
    void (CL_CALLBACK * pfn_notify) (cl_program, void *), void *user_data)
{
  STATUS (clBuildProgram, device_of_program (program));
  return REAL (clBuildProgram) (program, num_devices, device_list, options,
      pfn_notify, user_data);
}

CL_API_ENTRY cl_mem CL_API_CALL
clCreateBuffer (cl_context context, cl_mem_flags flags, size_t size,
    void *host_ptr, cl_int * errcode_ret)
{
  CREATE (clCreateBuffer, device_of_context (context), errcode_ret);
  return REAL (clCreateBuffer) (context, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueue (cl_context context, cl_device_id device,
    cl_command_queue_properties properties, cl_int * errcode_ret)
{
  CREATE (clCreateCommandQueue, device, errcode_ret);
  return REAL (clCreateCommandQueue) (context, device, properties,
      errcode_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties (cl_context context, cl_device_id device,
    const cl_queue_properties * properties, cl_int * errcode_ret)
{
  CREATE (clCreateCommandQueueWithProperties, device, errcode_ret);
  return REAL (clCreateCommandQueueWithProperties) (context, device,
      properties, errcode_ret);
}

CL_API_ENTRY cl_context CL_API_CALL
clCreateContext (const cl_context_properties * properties,
    cl_uint num_devices, const cl_device_id * devices,
    void (CL_CALLBACK * pfn_notify) (const char *, const void *, size_t,
        void *), void *user_data, cl_int * errcode_ret)
{
  CREATE (clCreateContext, num_devices ? devices[0] : NULL, errcode_ret);
  return REAL (clCreateContext) (properties, num_devices, devices, pfn_notify,
      user_data, errcode_ret);
}

CL_API_ENTRY cl_kernel CL_API_CALL
clCreateKernel (cl_program program, const char *kernel_name,
    cl_int * errcode_ret)
{
  CREATE (clCreateKernel, device_of_program (program), errcode_ret);
  return REAL (clCreateKernel) (program, kernel_name, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithBinary (cl_context context, cl_uint num_devices,
    const cl_device_id * device_list, const size_t * lengths,
    const unsigned char **binaries, cl_int * binary_status,
    cl_int * errcode_ret)
{
  CREATE (clCreateProgramWithBinary, num_devices ? device_list[0] : NULL,
      errcode_ret);
  return REAL (clCreateProgramWithBinary) (context, num_devices, device_list,
      lengths, binaries, binary_status, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithSource (cl_context context, cl_uint count,
    const char **strings, const size_t * lengths, cl_int * errcode_ret)
{
  CREATE (clCreateProgramWithSource, device_of_context (context),
      errcode_ret);
  return REAL (clCreateProgramWithSource) (context, count, strings, lengths,
      errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueCopyBuffer (cl_command_queue queue, cl_mem src, cl_mem dst,
    size_t src_offset, size_t dst_offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueCopyBuffer, device_of_queue (queue));
  return REAL (clEnqueueCopyBuffer) (queue, src, dst, src_offset, dst_offset,
      size, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueFillBuffer (cl_command_queue queue, cl_mem buffer,
    const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueFillBuffer, device_of_queue (queue));
  return REAL (clEnqueueFillBuffer) (queue, buffer, pattern, pattern_size,
      offset, size, num_events, wait_list, event);
}

CL_API_ENTRY void *CL_API_CALL
clEnqueueMapBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_map, cl_map_flags map_flags, size_t offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event,
    cl_int * errcode_ret)
{
  CREATE (clEnqueueMapBuffer, device_of_queue (queue), errcode_ret);
  return REAL (clEnqueueMapBuffer) (queue, buffer, blocking_map, map_flags,
      offset, size, num_events, wait_list, event, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel (cl_command_queue queue, cl_kernel kernel,
    cl_uint work_dim, const size_t * global_work_offset,
    const size_t * global_work_size, const size_t * local_work_size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueNDRangeKernel, device_of_queue (queue));
  return REAL (clEnqueueNDRangeKernel) (queue, kernel, work_dim,
      global_work_offset, global_work_size, local_work_size, num_events,
      wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueReadBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_read, size_t offset, size_t size, void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueReadBuffer, device_of_queue (queue));
  return REAL (clEnqueueReadBuffer) (queue, buffer, blocking_read, offset,
      size, ptr, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueReadBufferRect (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_read, const size_t * buffer_origin,
    const size_t * host_origin, const size_t * region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueReadBufferRect, device_of_queue (queue));
  return REAL (clEnqueueReadBufferRect) (queue, buffer, blocking_read,
      buffer_origin, host_origin, region, buffer_row_pitch,
      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_events,
      wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueSVMMap (cl_command_queue queue, cl_bool blocking_map,
    cl_map_flags flags, void *svm_ptr, size_t size, cl_uint num_events,
    const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueSVMMap, device_of_queue (queue));
  return REAL (clEnqueueSVMMap) (queue, blocking_map, flags, svm_ptr, size,
      num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueSVMUnmap (cl_command_queue queue, void *svm_ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueSVMUnmap, device_of_queue (queue));
  return REAL (clEnqueueSVMUnmap) (queue, svm_ptr, num_events, wait_list,
      event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueUnmapMemObject (cl_command_queue queue, cl_mem memobj,
    void *mapped_ptr, cl_uint num_events, const cl_event * wait_list,
    cl_event * event)
{
  STATUS (clEnqueueUnmapMemObject, device_of_queue (queue));
  return REAL (clEnqueueUnmapMemObject) (queue, memobj, mapped_ptr,
      num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueWriteBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_write, size_t offset, size_t size, const void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueWriteBuffer, device_of_queue (queue));
  return REAL (clEnqueueWriteBuffer) (queue, buffer, blocking_write, offset,
      size, ptr, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueWriteBufferRect (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_write, const size_t * buffer_origin,
    const size_t * host_origin, const size_t * region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueWriteBufferRect, device_of_queue (queue));
  return REAL (clEnqueueWriteBufferRect) (queue, buffer, blocking_write,
      buffer_origin, host_origin, region, buffer_row_pitch,
      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_events,
      wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clFinish (cl_command_queue queue)
{
  STATUS (clFinish, device_of_queue (queue));
  return REAL (clFinish) (queue);
}

CL_API_ENTRY cl_int CL_API_CALL
clFlush (cl_command_queue queue)
{
  STATUS (clFlush, device_of_queue (queue));
  return REAL (clFlush) (queue);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceIDs (cl_platform_id platform, cl_device_type device_type,
    cl_uint num_entries, cl_device_id * devices, cl_uint * num_devices)
{
  STATUS (clGetDeviceIDs, NULL);
  return REAL (clGetDeviceIDs) (platform, device_type, num_entries, devices,
      num_devices);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceInfo (cl_device_id device, cl_device_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetDeviceInfo, device);
  return REAL (clGetDeviceInfo) (device, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetEventInfo (cl_event event, cl_event_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetEventInfo, device_of_event (event));
  return REAL (clGetEventInfo) (event, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetEventProfilingInfo (cl_event event, cl_profiling_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetEventProfilingInfo, device_of_event (event));
  return REAL (clGetEventProfilingInfo) (event, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetKernelWorkGroupInfo (cl_kernel kernel, cl_device_id device,
    cl_kernel_work_group_info param_name, size_t param_value_size,
    void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetKernelWorkGroupInfo, device ? device :
      device_of_kernel (kernel));
  return REAL (clGetKernelWorkGroupInfo) (kernel, device, param_name,
      param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetMemObjectInfo (cl_mem memobj, cl_mem_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetMemObjectInfo, device_of_mem (memobj));
  return REAL (clGetMemObjectInfo) (memobj, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetPlatformIDs (cl_uint num_entries, cl_platform_id * platforms,
    cl_uint * num_platforms)
{
  STATUS (clGetPlatformIDs, NULL);
  return REAL (clGetPlatformIDs) (num_entries, platforms, num_platforms);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetPlatformInfo (cl_platform_id platform, cl_platform_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetPlatformInfo, NULL);
  return REAL (clGetPlatformInfo) (platform, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetProgramBuildInfo (cl_program program, cl_device_id device,
    cl_program_build_info param_name, size_t param_value_size,
    void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetProgramBuildInfo, device);
  return REAL (clGetProgramBuildInfo) (program, device, param_name,
      param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetProgramInfo (cl_program program, cl_program_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetProgramInfo, device_of_program (program));
  return REAL (clGetProgramInfo) (program, param_name, param_value_size,
      param_value, param_value_size_ret);
}

#define RELEASE(f, type, device_of) \
CL_API_ENTRY cl_int CL_API_CALL \
f (type object) \
{ \
  STATUS (f, device_of (object)); \
  return REAL (f) (object); \
}

RELEASE (clReleaseCommandQueue, cl_command_queue, device_of_queue);
RELEASE (clReleaseContext, cl_context, device_of_context);
RELEASE (clReleaseEvent, cl_event, device_of_event);
RELEASE (clReleaseKernel, cl_kernel, device_of_kernel);
RELEASE (clReleaseMemObject, cl_mem, device_of_mem);
RELEASE (clReleaseProgram, cl_program, device_of_program);
RELEASE (clRetainEvent, cl_event, device_of_event);

CL_API_ENTRY cl_int CL_API_CALL
clSetKernelArg (cl_kernel kernel, cl_uint arg_index, size_t arg_size,
    const void *arg_value)
{
  STATUS (clSetKernelArg, device_of_kernel (kernel));
  return REAL (clSetKernelArg) (kernel, arg_index, arg_size, arg_value);
}

CL_API_ENTRY cl_int CL_API_CALL
clSetKernelArgSVMPointer (cl_kernel kernel, cl_uint arg_index,
    const void *arg_value)
{
  STATUS (clSetKernelArgSVMPointer, device_of_kernel (kernel));
  return REAL (clSetKernelArgSVMPointer) (kernel, arg_index, arg_value);
}

CL_API_ENTRY cl_int CL_API_CALL
clWaitForEvents (cl_uint num_events, const cl_event * event_list)
{
  STATUS (clWaitForEvents, num_events ? device_of_event (event_list[0]) :
      NULL);
  return REAL (clWaitForEvents) (num_events, event_list);
}
