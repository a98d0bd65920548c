/*
 * libFuzzer target for the BVH loader (support/bvh.c): arbitrary bytes as BVH
 * text. Properties checked, aborting on violation:
 *   - bvh_parse returns 0 or -1; on -1 the message is "line N: ..." and the
 *     clip holds nothing; parsing is deterministic;
 *   - on 0 the clip is consistent: joints >= 1, parents precede children,
 *     channel counts 0..6 with known channels, channel offsets add up to
 *     channel_count, frame_count >= 0 and every motion value is readable;
 *   - posing any frame (also out of range), finding legs and detecting the
 *     scale never crash; bvh_free releases everything (LeakSanitizer).
 */
#define FUZZ_NAME "fuzz_bvh"
#include "fuzz_common.h"
#include "bvh.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, not NUL-terminated: the parser must honour len */
    char *text = (char *)malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);

    bvh_clip clip, again;
    char err[256], err2[256];
    err[0] = err2[0] = '\0';
    int rc = bvh_parse(text, size, &clip, err, sizeof err);
    CHECK(rc == 0 || rc == -1, "bvh_parse returned %d", rc);
    int rc2 = bvh_parse(text, size, &again, err2, sizeof err2);
    CHECK(rc == rc2, "parsing twice gave %d then %d", rc, rc2);
    if (rc != 0) {
        CHECK(strncmp(err, "line ", 5) == 0, "error message \"%s\" names no line", err);
        CHECK(strcmp(err, err2) == 0, "error messages differ: \"%s\" / \"%s\"", err, err2);
        CHECK(clip.joints == NULL && clip.motion == NULL, "a failed parse left memory");
        free(text);
        return 0;
    }
    bvh_free(&again);

    CHECK(clip.joint_count >= 1 && clip.joints != NULL, "%d joints", clip.joint_count);
    CHECK(clip.frame_count >= 0 && clip.channel_count >= 0, "frames %d channels %d", clip.frame_count,
          clip.channel_count);
    int channels = 0;
    for (int j = 0; j < clip.joint_count; ++j) {
        const bvh_joint *jt = &clip.joints[j];
        CHECK(jt->parent >= -1 && jt->parent < j, "joint %d has parent %d", j, jt->parent);
        CHECK(jt->channel_count >= 0 && jt->channel_count <= 6, "joint %d: %d channels", j,
              jt->channel_count);
        CHECK(jt->channel_offset == channels, "joint %d channel offset %d, expected %d", j,
              jt->channel_offset, channels);
        for (int c = 0; c < jt->channel_count; ++c)
            CHECK(jt->channels[c] >= BVH_XPOS && jt->channels[c] <= BVH_ZROT, "joint %d channel %d", j,
                  jt->channels[c]);
        CHECK(memchr(jt->name, '\0', BVH_NAME_MAX) != NULL, "joint %d name not terminated", j);
        channels += jt->channel_count;
    }
    CHECK(channels == clip.channel_count, "channels add up to %d, clip says %d", channels,
          clip.channel_count);
    size_t values = (size_t)clip.frame_count * (size_t)clip.channel_count;
    CHECK(values == 0 || clip.motion != NULL, "no motion for %zu values", values);
    volatile float sink = 0.0f;
    for (size_t k = 0; k < values; ++k) sink += clip.motion[k];
    (void)sink;

    /* posing: first, last and out-of-range frames (clamped) */
    size_t n = (size_t)clip.joint_count;
    cik_vec3 *pos = (cik_vec3 *)malloc(n * sizeof *pos);
    cik_quat *rot = (cik_quat *)malloc(n * sizeof *rot);
    cik_vec3 *end = (cik_vec3 *)malloc(n * sizeof *end);
    if (pos && rot && end) {
        const int frames[] = {0, clip.frame_count - 1, -5, clip.frame_count + 3};
        for (size_t f = 0; f < sizeof frames / sizeof frames[0]; ++f) {
            bvh_pose(&clip, frames[f], pos, rot, end);
            bvh_pose(&clip, frames[f], pos, rot, NULL);
        }
        bvh_leg legs[2];
        char lerr[256];
        if (bvh_find_legs(&clip, legs, lerr, sizeof lerr) == 0) {
            for (int l = 0; l < 2; ++l) {
                const bvh_leg *leg = &legs[l];
                CHECK(leg->hip >= 0 && leg->hip < clip.joint_count && leg->knee >= 0 &&
                          leg->knee < clip.joint_count && leg->ankle >= 0 &&
                          leg->ankle < clip.joint_count && leg->toe >= -1 && leg->toe < clip.joint_count,
                      "leg %d indices %d %d %d %d", l, leg->hip, leg->knee, leg->ankle, leg->toe);
                bvh_pose(&clip, 0, pos, rot, end);
                (void)bvh_toe_position(&clip, leg, pos, end);
                (void)bvh_detect_scale(&clip, leg);
            }
        }
        (void)bvh_find_joint(&clip, "Hips");
        (void)bvh_find_joint(&clip, "mixamorig:LeftFoot");
    }
    free(pos);
    free(rot);
    free(end);
    bvh_free(&clip);
    free(text);
    return 0;
}
