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
 *                                 wrapped function from its own N-th call
 *   CLR_FAULT_RANDOM=P            each wrapped call fails with probability
 *   CLR_FAULT_SEED=S              P, the same calls for the same seed and
 *                                 the same order of calls (default seed 1)
 *   CLR_FAULT_CODE=C              the code a failed call gives (default
 *                                 CL_OUT_OF_RESOURCES, -5)
 *   CLR_FAULT_LOG=1               one line on stderr per injected fault:
 *                                 "clr-fault: failing clFlush call 30"
 *   CLR_FAULT_STATS=1             every function's count of calls on
 *                                 stderr at exit (to pick an N)
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <dlfcn.h>
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
typedef struct
{
  int func;                     /* -1: every function (*) */
  unsigned long n;
  int from;                     /* N+ */
} Rule;

static Rule rules[MAX_RULES];
static int n_rules;
static double random_p;
static uint64_t seed = 1;
static cl_int code = CL_OUT_OF_RESOURCES;
static int log_faults, stats;

static atomic_ulong counts[N_FUNCS];
static atomic_ulong sequence;   /* every wrapped call, for the random mode */
static void *_Atomic reals[N_FUNCS];

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
    r.func = (colon - p == 1 && *p == '*') ? -1 : func_index (p, colon - p);
    if (r.func == -2) {
      fprintf (stderr, "clr-fault: CLR_FAULT names '%.*s', which is not "
          "wrapped\n", (int) (colon - p), p);
      abort ();
    }
    r.n = strtoul (colon + 1, &after, 10);
    r.from = (*after == '+');
    if (r.from)
      after++;
    if (r.n == 0 || after != end || n_rules == MAX_RULES) {
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

/* Counts this call of func; whether it is to fail */
static int
fault_hit (int func)
{
  unsigned long n = atomic_fetch_add (&counts[func], 1) + 1;
  int i, hit = 0;

  for (i = 0; i < n_rules && !hit; i++)
    if (rules[i].func == -1 || rules[i].func == func)
      hit = rules[i].from ? n >= rules[i].n : n == rules[i].n;
  if (!hit && random_p > 0) {
    uint64_t k = atomic_fetch_add (&sequence, 1);
    double u = (mix (seed * 0x2545f4914f6cdd1dull ^ mix (k)) >> 11)
        * (1.0 / 9007199254740992.0);

    hit = u < random_p;
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
/* a function returning a status */
#define STATUS(f) \
  if (fault_hit (F_##f)) \
    return code
/* one creating something: NULL and *errcode_ret */
#define CREATE(f, errcode_ret) \
  if (fault_hit (F_##f)) { \
    if (errcode_ret) \
      *(errcode_ret) = code; \
    return NULL; \
  }

CL_API_ENTRY cl_int CL_API_CALL
clBuildProgram (cl_program program, cl_uint num_devices,
    const cl_device_id * device_list, const char *options,
    void (CL_CALLBACK * pfn_notify) (cl_program, void *), void *user_data)
{
  STATUS (clBuildProgram);
  return REAL (clBuildProgram) (program, num_devices, device_list, options,
      pfn_notify, user_data);
}

CL_API_ENTRY cl_mem CL_API_CALL
clCreateBuffer (cl_context context, cl_mem_flags flags, size_t size,
    void *host_ptr, cl_int * errcode_ret)
{
  CREATE (clCreateBuffer, errcode_ret);
  return REAL (clCreateBuffer) (context, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueue (cl_context context, cl_device_id device,
    cl_command_queue_properties properties, cl_int * errcode_ret)
{
  CREATE (clCreateCommandQueue, errcode_ret);
  return REAL (clCreateCommandQueue) (context, device, properties,
      errcode_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties (cl_context context, cl_device_id device,
    const cl_queue_properties * properties, cl_int * errcode_ret)
{
  CREATE (clCreateCommandQueueWithProperties, errcode_ret);
  return REAL (clCreateCommandQueueWithProperties) (context, device,
      properties, errcode_ret);
}

CL_API_ENTRY cl_context CL_API_CALL
clCreateContext (const cl_context_properties * properties,
    cl_uint num_devices, const cl_device_id * devices,
    void (CL_CALLBACK * pfn_notify) (const char *, const void *, size_t,
        void *), void *user_data, cl_int * errcode_ret)
{
  CREATE (clCreateContext, errcode_ret);
  return REAL (clCreateContext) (properties, num_devices, devices, pfn_notify,
      user_data, errcode_ret);
}

CL_API_ENTRY cl_kernel CL_API_CALL
clCreateKernel (cl_program program, const char *kernel_name,
    cl_int * errcode_ret)
{
  CREATE (clCreateKernel, errcode_ret);
  return REAL (clCreateKernel) (program, kernel_name, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithBinary (cl_context context, cl_uint num_devices,
    const cl_device_id * device_list, const size_t * lengths,
    const unsigned char **binaries, cl_int * binary_status,
    cl_int * errcode_ret)
{
  CREATE (clCreateProgramWithBinary, errcode_ret);
  return REAL (clCreateProgramWithBinary) (context, num_devices, device_list,
      lengths, binaries, binary_status, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithSource (cl_context context, cl_uint count,
    const char **strings, const size_t * lengths, cl_int * errcode_ret)
{
  CREATE (clCreateProgramWithSource, errcode_ret);
  return REAL (clCreateProgramWithSource) (context, count, strings, lengths,
      errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueCopyBuffer (cl_command_queue queue, cl_mem src, cl_mem dst,
    size_t src_offset, size_t dst_offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueCopyBuffer);
  return REAL (clEnqueueCopyBuffer) (queue, src, dst, src_offset, dst_offset,
      size, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueFillBuffer (cl_command_queue queue, cl_mem buffer,
    const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueFillBuffer);
  return REAL (clEnqueueFillBuffer) (queue, buffer, pattern, pattern_size,
      offset, size, num_events, wait_list, event);
}

CL_API_ENTRY void *CL_API_CALL
clEnqueueMapBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_map, cl_map_flags map_flags, size_t offset, size_t size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event,
    cl_int * errcode_ret)
{
  CREATE (clEnqueueMapBuffer, errcode_ret);
  return REAL (clEnqueueMapBuffer) (queue, buffer, blocking_map, map_flags,
      offset, size, num_events, wait_list, event, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel (cl_command_queue queue, cl_kernel kernel,
    cl_uint work_dim, const size_t * global_work_offset,
    const size_t * global_work_size, const size_t * local_work_size,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueNDRangeKernel);
  return REAL (clEnqueueNDRangeKernel) (queue, kernel, work_dim,
      global_work_offset, global_work_size, local_work_size, num_events,
      wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueReadBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_read, size_t offset, size_t size, void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueReadBuffer);
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
  STATUS (clEnqueueReadBufferRect);
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
  STATUS (clEnqueueSVMMap);
  return REAL (clEnqueueSVMMap) (queue, blocking_map, flags, svm_ptr, size,
      num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueSVMUnmap (cl_command_queue queue, void *svm_ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueSVMUnmap);
  return REAL (clEnqueueSVMUnmap) (queue, svm_ptr, num_events, wait_list,
      event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueUnmapMemObject (cl_command_queue queue, cl_mem memobj,
    void *mapped_ptr, cl_uint num_events, const cl_event * wait_list,
    cl_event * event)
{
  STATUS (clEnqueueUnmapMemObject);
  return REAL (clEnqueueUnmapMemObject) (queue, memobj, mapped_ptr,
      num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueWriteBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking_write, size_t offset, size_t size, const void *ptr,
    cl_uint num_events, const cl_event * wait_list, cl_event * event)
{
  STATUS (clEnqueueWriteBuffer);
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
  STATUS (clEnqueueWriteBufferRect);
  return REAL (clEnqueueWriteBufferRect) (queue, buffer, blocking_write,
      buffer_origin, host_origin, region, buffer_row_pitch,
      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_events,
      wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL
clFinish (cl_command_queue queue)
{
  STATUS (clFinish);
  return REAL (clFinish) (queue);
}

CL_API_ENTRY cl_int CL_API_CALL
clFlush (cl_command_queue queue)
{
  STATUS (clFlush);
  return REAL (clFlush) (queue);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceIDs (cl_platform_id platform, cl_device_type device_type,
    cl_uint num_entries, cl_device_id * devices, cl_uint * num_devices)
{
  STATUS (clGetDeviceIDs);
  return REAL (clGetDeviceIDs) (platform, device_type, num_entries, devices,
      num_devices);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceInfo (cl_device_id device, cl_device_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetDeviceInfo);
  return REAL (clGetDeviceInfo) (device, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetEventInfo (cl_event event, cl_event_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetEventInfo);
  return REAL (clGetEventInfo) (event, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetEventProfilingInfo (cl_event event, cl_profiling_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetEventProfilingInfo);
  return REAL (clGetEventProfilingInfo) (event, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetKernelWorkGroupInfo (cl_kernel kernel, cl_device_id device,
    cl_kernel_work_group_info param_name, size_t param_value_size,
    void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetKernelWorkGroupInfo);
  return REAL (clGetKernelWorkGroupInfo) (kernel, device, param_name,
      param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetMemObjectInfo (cl_mem memobj, cl_mem_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetMemObjectInfo);
  return REAL (clGetMemObjectInfo) (memobj, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetPlatformIDs (cl_uint num_entries, cl_platform_id * platforms,
    cl_uint * num_platforms)
{
  STATUS (clGetPlatformIDs);
  return REAL (clGetPlatformIDs) (num_entries, platforms, num_platforms);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetPlatformInfo (cl_platform_id platform, cl_platform_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetPlatformInfo);
  return REAL (clGetPlatformInfo) (platform, param_name, param_value_size,
      param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetProgramBuildInfo (cl_program program, cl_device_id device,
    cl_program_build_info param_name, size_t param_value_size,
    void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetProgramBuildInfo);
  return REAL (clGetProgramBuildInfo) (program, device, param_name,
      param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL
clGetProgramInfo (cl_program program, cl_program_info param_name,
    size_t param_value_size, void *param_value, size_t * param_value_size_ret)
{
  STATUS (clGetProgramInfo);
  return REAL (clGetProgramInfo) (program, param_name, param_value_size,
      param_value, param_value_size_ret);
}

#define RELEASE(f, type) \
CL_API_ENTRY cl_int CL_API_CALL \
f (type object) \
{ \
  STATUS (f); \
  return REAL (f) (object); \
}

RELEASE (clReleaseCommandQueue, cl_command_queue);
RELEASE (clReleaseContext, cl_context);
RELEASE (clReleaseEvent, cl_event);
RELEASE (clReleaseKernel, cl_kernel);
RELEASE (clReleaseMemObject, cl_mem);
RELEASE (clReleaseProgram, cl_program);
RELEASE (clRetainEvent, cl_event);

CL_API_ENTRY cl_int CL_API_CALL
clSetKernelArg (cl_kernel kernel, cl_uint arg_index, size_t arg_size,
    const void *arg_value)
{
  STATUS (clSetKernelArg);
  return REAL (clSetKernelArg) (kernel, arg_index, arg_size, arg_value);
}

CL_API_ENTRY cl_int CL_API_CALL
clSetKernelArgSVMPointer (cl_kernel kernel, cl_uint arg_index,
    const void *arg_value)
{
  STATUS (clSetKernelArgSVMPointer);
  return REAL (clSetKernelArgSVMPointer) (kernel, arg_index, arg_value);
}

CL_API_ENTRY cl_int CL_API_CALL
clWaitForEvents (cl_uint num_events, const cl_event * event_list)
{
  STATUS (clWaitForEvents);
  return REAL (clWaitForEvents) (num_events, event_list);
}
