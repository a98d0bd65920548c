/*
 * A small BVH (Biovision hierarchy) motion-capture loader for the crowdik
 * tools and tests: hierarchy, offsets, channels in any order, frames.
 *
 * Robust to what real files contain: CRLF, LF or mixed line ends, tabs,
 * numbers such as ".0083333" and "1e-05", trailing spaces, "Frames:<TAB>N".
 * A malformed file gives an error message with its line number; nothing in
 * the loader trusts a count before checking it.
 *
 * Units are the file's (often not metres): bvh_detect_scale suggests the
 * factor to metres from the leg length. Rotations are degrees in the file,
 * applied intrinsically in the listed channel order (R = R1 R2 R3).
 */
#ifndef CROWDIK_TOOLS_BVH_H
#define CROWDIK_TOOLS_BVH_H

#include <stddef.h>

#include "crowdik/crowdik.h"

#ifdef __cplusplus
extern "C" {
#endif

enum bvh_channel { BVH_XPOS, BVH_YPOS, BVH_ZPOS, BVH_XROT, BVH_YROT, BVH_ZROT };

#define BVH_NAME_MAX 64

typedef struct bvh_joint {
    char name[BVH_NAME_MAX];
    int parent;          /* -1 for the root */
    float offset[3];     /* from the parent joint, file units */
    int channel_count;   /* 0..6 */
    int channels[6];     /* enum bvh_channel, in file order */
    int channel_offset;  /* index of the first channel in a frame row */
    int has_end;         /* an End Site follows */
    float end_offset[3]; /* its offset */
} bvh_joint;

typedef struct bvh_clip {
    int joint_count; /* ROOT and JOINT nodes (End Sites are not joints) */
    bvh_joint *joints;
    int channel_count; /* values per frame */
    int frame_count;
    double frame_time; /* seconds */
    float *motion;     /* frame_count * channel_count */
} bvh_clip;

/* Parses `len` bytes of BVH text into `out` (zeroed first). Returns 0 on
 * success; otherwise -1 with a message "line N: ..." in err (if non-NULL)
 * and nothing to free. */
int bvh_parse(const char *text, size_t len, bvh_clip *out, char *err, size_t err_size);

/* Reads and parses a file; errors name the file and line. */
int bvh_load(const char *path, bvh_clip *out, char *err, size_t err_size);
/* A whole file in memory with a NUL after its `*len` bytes (free() it), or
 * NULL: then `*open_errno` is fopen's errno, or 0 when reading failed (or
 * the file is over 1 GiB). What bvh_load reads a clip with. */
char *bvh_read_file(const char *path, size_t *len, int *open_errno);

void bvh_free(bvh_clip *clip);

/* Index of the joint called `name` (case-insensitive; a "prefix:" such as
 * "mixamorig:" on the joint's name is ignored), or -1. */
int bvh_find_joint(const bvh_clip *clip, const char *name);

/* One leg: hip, knee, ankle joints and the toe (a joint, or -1 when the toe
 * tip is the ankle's End Site). */
typedef struct bvh_leg {
    int hip, knee, ankle, toe;
} bvh_leg;

/* Finds a leg by names (toe may be NULL: the ankle's End Site, else its
 * first child). Checks that knee is the hip's child and ankle the knee's.
 * Returns 0 or -1 with a message. */
int bvh_find_leg(const bvh_clip *clip, const char *hip, const char *knee, const char *ankle,
                 const char *toe, bvh_leg *out, char *err, size_t err_size);

/* Finds both legs (0 left, 1 right) by the common naming schemes:
 * LeftUpLeg/LeftLeg/LeftFoot/LeftToeBase (and Right...), lThigh/lShin/lFoot
 * with an End Site toe (and r...), LeftHip/LeftKnee/LeftAnkle. */
int bvh_find_legs(const bvh_clip *clip, bvh_leg legs[2], char *err, size_t err_size);

/* Forward kinematics of frame `frame` (clamped to the clip): world
 * positions (file units) and rotations of every joint; `end` (may be NULL)
 * gets each joint's End Site position (its own position if it has none). */
void bvh_pose(const bvh_clip *clip, int frame, cik_vec3 *pos, cik_quat *rot, cik_vec3 *end);

/* The toe tip of a leg in a posed frame (arrays from bvh_pose). */
cik_vec3 bvh_toe_position(const bvh_clip *clip, const bvh_leg *leg, const cik_vec3 *pos,
                          const cik_vec3 *end);

/* Factor from file units to metres suggested by the leg length (hip to
 * ankle): the candidate among metres, centimetres, millimetres, inches and
 * the CMU unit (0.0254 / 0.45 m) that gives the most human leg. */
float bvh_detect_scale(const bvh_clip *clip, const bvh_leg *leg);

#ifdef __cplusplus
}
#endif

#endif
