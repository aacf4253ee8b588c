/* clresample: the convolution's groups and seats. See clr-conv-shared.h;
 * the kernels are clr_convs_* in kernels/conv.cl.
 *
 * A group's pools have room for a fixed number of seats, chosen when it is
 * made (as many as its pool bytes hold, at most CLR_CONV_POOL_SEATS):
 * growing a pool would mean moving the state of streams whose batches may
 * be on the device. A stream that finds its group full takes a seat in the
 * next group of the same key (the key with "#1", "#2", ... after it),
 * whose launches then run beside the first's in the same batch. Each next
 * group's pools are twice the last's (up to CLR_CONV_POOL_DOUBLINGS
 * times): a million-tap stereo filter's seat is 18 MB, so 64 streams took
 * 22 groups of 3 seats, 66 launches a batch each over 3 streams, made one
 * after another while every stream waited; now 5 groups.
 */
#include <string.h>
#include "clr-conv-shared.h"
#include "device/clr-budget.h"
#include "clr-kernel-sources.h"
#include "clr-log.h"

/* Device memory the first group of a key's pools take at most (a stream
 * needing more gets a group of its own), the times a next group's
 * doubles it, and seats a group has at most. */
#define CLR_CONV_POOL_BYTES (64u << 20)
#define CLR_CONV_POOL_DOUBLINGS 4u
#define CLR_CONV_POOL_SEATS 64u

struct _ClrConvGroup {
  ClrBudget budget;
  ClrConvShape shape;           /* options and make_tables not kept */
  size_t fft_items, mac_lanes;
  cl_kernel forward, mac, inverse;
  cl_mem twiddles, spectra;
  cl_mem ring;                  /* [seat][slot][channel][bin_stride] */
  cl_mem prod;                  /* [seat][block][output][bin_stride] */
  GMutex lock;
  guint n_seats, n_taken;
  gboolean *taken;
};

size_t
clr_conv_seat_bytes (const ClrConvShape * sh)
{
  return ((size_t) sh->slots * sh->channels + (size_t) sh->max_batch *
      sh->n_out) * sh->bin_stride * sh->csize;
}

static void
group_free (gpointer data)
{
  ClrConvGroup *g = data;
  cl_mem *mems[] = { &g->twiddles, &g->spectra, &g->ring, &g->prod };
  cl_kernel kernels[] = { g->forward, g->mac, g->inverse };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    clr_budget_free (&g->budget, mems[i]);
  for (i = 0; i < G_N_ELEMENTS (kernels); i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  g_mutex_clear (&g->lock);
  g_free (g->taken);
  g_free (g);
}

#define ARG_MEM(m) { sizeof (cl_mem), &(m), NULL }
#define ARG_UINT(u) { sizeof (cl_uint), &(u), NULL }
#define ARG_SHARED(m, p) { sizeof (cl_mem), &(m), (p) }

/* The batch's rows [first, first + n) of this group: the three kernels,
 * each over every row's blocks (up to a->items a row). */
static cl_int
group_launch (gpointer data, cl_command_queue q,
    const ClrSchedLaunchArgs * a, cl_event * last)
{
  ClrConvGroup *g = data;
  const ClrConvShape *sh = &g->shape;
  const cl_uint maxblk = (cl_uint) MAX (a->items, 1);
  cl_mem in = a->in, out = a->out;
  const ClrKernelArg forward[] = { ARG_SHARED (in, a->in_svm),
    ARG_SHARED (in, a->in_svm), ARG_UINT (a->first), ARG_UINT (sh->channels),
    ARG_MEM (g->ring), ARG_UINT (sh->slots), ARG_MEM (g->twiddles)
  };
  const ClrKernelArg mac[] = { ARG_SHARED (in, a->in_svm),
    ARG_UINT (a->first), ARG_UINT (maxblk), ARG_MEM (g->ring),
    ARG_UINT (sh->slots), ARG_UINT (sh->parts), ARG_MEM (g->spectra),
    ARG_UINT (sh->filter_stride), ARG_MEM (g->prod),
    ARG_UINT (sh->max_batch),
    /* the slices' tree: re and im of 4 bins a work-item */
    {2 * sh->acc_size * g->mac_lanes * sh->slices, NULL, NULL},
    ARG_UINT (sh->channels), ARG_UINT (sh->filter_div)
  };
  const ClrKernelArg inverse[] = { ARG_SHARED (in, a->in_svm),
    ARG_UINT (a->first), ARG_UINT (sh->n_out), ARG_MEM (g->prod),
    ARG_UINT (sh->max_batch), ARG_MEM (g->twiddles),
    ARG_SHARED (out, a->out_svm)
  };
  const size_t fwd_global[2] = { g->fft_items * sh->channels * maxblk, a->n };
  const size_t inv_global[2] = { g->fft_items * sh->n_out * maxblk, a->n };
  const size_t fft_local[2] = { g->fft_items, 1 };
  const size_t mac_global[3] = {
    (sh->bin_stride / 4 + g->mac_lanes - 1) / g->mac_lanes * g->mac_lanes,
    sh->n_out, (size_t) a->n * maxblk * sh->slices
  };
  const size_t mac_local[3] = { g->mac_lanes, 1, sh->slices };
  cl_int status;

  status = clr_kernel_set_args (g->forward, forward, G_N_ELEMENTS (forward));
  status |= clr_kernel_set_args (g->mac, mac, G_N_ELEMENTS (mac));
  status |= clr_kernel_set_args (g->inverse, inverse, G_N_ELEMENTS (inverse));
  if (status != CL_SUCCESS)
    return status;
  status = clEnqueueNDRangeKernel (q, g->forward, 2, NULL, fwd_global,
      fft_local, 0, NULL, NULL);
  if (status == CL_SUCCESS)
    status = clEnqueueNDRangeKernel (q, g->mac, 3, NULL, mac_global,
        mac_local, 0, NULL, NULL);
  if (status == CL_SUCCESS)
    status = clEnqueueNDRangeKernel (q, g->inverse, 2, NULL, inv_global,
        fft_local, 0, NULL, last);
  return status;
}

typedef struct
{
  ClrDevice *dev;
  const ClrConvShape *shape;
  guint index;                  /* the group's place among its key's */
} GroupMake;

/* The largest work-group `k` may have on the device (0: unknown). */
static size_t
kernel_wg_max (ClrDevice * dev, cl_kernel k)
{
  size_t wg = 0;

  clGetKernelWorkGroupInfo (k, clr_device_get_id (dev),
      CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg, NULL);
  return wg;
}

static gboolean
group_make (gpointer data, ClrSchedKernelInfo * info, GError ** error)
{
  const GroupMake *m = data;
  const ClrConvShape *sh = m->shape;
  const size_t seat_bytes = clr_conv_seat_bytes (sh);
  ClrConvGroup *g = g_new0 (ClrConvGroup, 1);
  const char *names[] = { "clr_convs_forward", "clr_convs_mac",
    "clr_convs_inverse"
  };
  cl_kernel *kernels[] = { &g->forward, &g->mac, &g->inverse };
  cl_program program;
  cl_int status;
  size_t wg, first_seats;
  guint i;

  g_mutex_init (&g->lock);
  clr_budget_init (&g->budget, m->dev, 0);
  g->shape = *sh;
  g->shape.options = NULL;
  g->shape.make_tables = NULL;
  g->shape.user = NULL;
  /* at least one, so that a seat larger than the pool still doubles */
  first_seats = MAX (sh->first_seats ? sh->first_seats :
      CLR_CONV_POOL_BYTES / MAX (seat_bytes, 1), 1);
  g->n_seats = MIN (first_seats << MIN (m->index, CLR_CONV_POOL_DOUBLINGS),
      CLR_CONV_POOL_SEATS);
  /* each pool one allocation */
  while (g->n_seats > 1 && (cl_ulong) g->n_seats * sh->slots * sh->channels *
      sh->bin_stride * sh->csize > clr_device_get_max_alloc (m->dev))
    g->n_seats /= 2;
  g->taken = g_new0 (gboolean, g->n_seats);
  if (!(program = clr_device_get_program (m->dev, clr_kernel_source_conv,
              sh->options, error)))
    goto failed;
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    *kernels[i] = clCreateKernel (program, names[i], &status);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, names[i]);
      goto failed;
    }
  }
  g->fft_items = sh->fft_items;
  wg = MIN (kernel_wg_max (m->dev, g->forward),
      kernel_wg_max (m->dev, g->inverse));
  while (wg && g->fft_items > wg)
    g->fft_items /= 2;
  wg = kernel_wg_max (m->dev, g->mac);
  if (wg && sh->slices > wg) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "The shared "
        "convolution's sum takes work-groups of %u slices, '%s' at most %"
        G_GSIZE_FORMAT, sh->slices, clr_device_get_name (m->dev), wg);
    goto failed;
  }
  g->mac_lanes = MAX (1, sh->mac_items / sh->slices);
  while (wg && g->mac_lanes * sh->slices > wg)
    g->mac_lanes /= 2;
  if (!sh->make_tables (sh->user, &g->twiddles, &g->spectra, error))
    goto failed;
  if (!(g->ring = clr_budget_alloc (&g->budget, CL_MEM_READ_WRITE,
              (size_t) g->n_seats * sh->slots * sh->channels *
              sh->bin_stride * sh->csize, NULL,
              "shared frequency-domain delay lines", error))
      || !(g->prod = clr_budget_alloc (&g->budget, CL_MEM_READ_WRITE,
              (size_t) g->n_seats * sh->max_batch * sh->n_out *
              sh->bin_stride * sh->csize, NULL, "shared product spectra",
              error)))
    goto failed;
  clr_log (CLR_LOG_INFO, "convolution group: %u seats of %" G_GSIZE_FORMAT
      " bytes, %u ch x %u out, B %u, %u partitions", g->n_seats, seat_bytes,
      sh->channels, sh->n_out, sh->block, sh->parts);
  memset (info, 0, sizeof (*info));
  info->launch = group_launch;
  info->launch_data = g;
  info->launch_free = group_free;
  return TRUE;

failed:
  group_free (g);
  return FALSE;
}

static gboolean
group_sit (ClrConvGroup * g, guint * seat)
{
  gboolean found = FALSE;
  guint i;

  g_mutex_lock (&g->lock);
  for (i = 0; i < g->n_seats && !found; i++)
    if (!g->taken[i]) {
      g->taken[i] = found = TRUE;
      g->n_taken++;
      *seat = i;
    }
  g_mutex_unlock (&g->lock);
  return found;
}

gboolean
clr_conv_seat_take (ClrDevice * dev, ClrStaging staging, const char *key,
    const ClrConvShape * shape, ClrConvSeat * seat, GError ** error)
{
  GroupMake make = { dev, shape, 0 };
  guint i;

  memset (seat, 0, sizeof (*seat));
  if (!(seat->sched = clr_sched_get (dev, staging, error)))
    return FALSE;
  for (i = 0;; i++) {
    gchar *k = g_strdup_printf ("%s#%u", key, i);

    make.index = i;
    seat->kern = clr_sched_kernel_get (seat->sched, k, group_make, &make,
        error);
    g_free (k);
    if (!seat->kern)
      break;
    seat->group = clr_sched_kernel_get_launch_data (seat->kern);
    if (group_sit (seat->group, &seat->seat))
      return TRUE;
    clr_sched_kernel_unref (seat->sched, seat->kern);
  }
  clr_sched_unref (seat->sched);
  memset (seat, 0, sizeof (*seat));
  return FALSE;
}

void
clr_conv_seat_leave (ClrConvSeat * seat)
{
  if (!seat->sched)
    return;
  g_mutex_lock (&seat->group->lock);
  seat->group->taken[seat->seat] = FALSE;
  seat->group->n_taken--;
  g_mutex_unlock (&seat->group->lock);
  clr_sched_kernel_unref (seat->sched, seat->kern);
  clr_sched_unref (seat->sched);
  memset (seat, 0, sizeof (*seat));
}
