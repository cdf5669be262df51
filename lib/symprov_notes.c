// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Requests a host notes where it must not wait, asked for later:
 * symprov_session_note() and symprov_session_ask_noted().  perf finds out
 * what a profile misses with its own lookup, under a lock of its own; it
 * notes each request there and asks for all of them side by side once the
 * lock is dropped, or for those of one object when it comes to load it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symprov_session.h"

struct symprov_note {
	uint32_t kind;
	uint32_t build_id_len;
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	char *name; /* the host's name of the object, or NULL */
	bool asked;
};

static bool note_of(const struct symprov_note *n, const unsigned char *id,
		    uint32_t len)
{
	return n->build_id_len == len && !memcmp(n->build_id, id, len);
}

int symprov_session_note(struct symprov_session *s,
			 const struct symprov_find_opts *req)
{
	struct symprov_find_opts fo;
	struct symprov_request r;
	struct symprov_note *n;
	int ret = 1;
	size_t i;

	if (!s || session_request(req, &fo, &r, 0))
		return -EINVAL;
	pthread_mutex_lock(&s->notes_lock);
	for (i = 0; i < s->nr_notes; i++) {
		n = &s->notes[i];
		if (n->kind == fo.kind &&
		    note_of(n, fo.build_id, fo.build_id_len)) {
			ret = !n->asked;
			goto out;
		}
	}
	n = realloc(s->notes, (i + 1) * sizeof(*n));
	if (!n) {
		ret = -ENOMEM;
		goto out;
	}
	s->notes = n;
	n += i;
	*n = (struct symprov_note){
		.kind = fo.kind,
		.build_id_len = fo.build_id_len,
		.name = fo.dso_name ? strdup(fo.dso_name) : NULL,
	};
	memcpy(n->build_id, fo.build_id, fo.build_id_len);
	s->nr_notes++;
out:
	pthread_mutex_unlock(&s->notes_lock);
	return ret;
}

/* An executable of @n's build ID among @notes: @n is asked for after it */
static bool notes_have_executable(const struct symprov_note *notes, size_t nr,
				  const struct symprov_note *n)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (notes[i].kind == SYMPROV_KIND_EXECUTABLE &&
		    note_of(&notes[i], n->build_id, n->build_id_len))
			return true;
	return false;
}

/*
 * The notes not asked for, of build ID @id or all, copied into @out and
 * marked asked, but for the debug files of executables among them unless
 * @as_listed: those are asked for after their executable, whatever order
 * they were noted in
 */
static size_t notes_take(struct symprov_session *s, const unsigned char *id,
			 uint32_t len, bool as_listed, struct symprov_note *out)
{
	size_t i, nr = 0, kept = 0;

	for (i = 0; i < s->nr_notes; i++) {
		struct symprov_note *n = &s->notes[i];

		if (n->asked || (id && !note_of(n, id, len)))
			continue;
		n->asked = true;
		out[nr++] = *n;
	}
	for (i = 0; i < nr; i++)
		if (as_listed || out[i].kind != SYMPROV_KIND_DEBUGINFO ||
		    !notes_have_executable(out, nr, &out[i]))
			out[kept++] = out[i];
	return kept;
}

int symprov_session_ask_noted(struct symprov_session *s,
			      const unsigned char *build_id,
			      uint32_t build_id_len,
			      const struct symprov_prefetch_opts *opts,
			      struct symprov_prefetch_result *res)
{
	struct symprov_object *objs = NULL;
	struct symprov_note *notes = NULL;
	size_t i, nr = 0;
	bool as_listed;
	int err;

	if (!s || (build_id && !build_id_len))
		return -EINVAL;
	/* options the prefetch refuses: no note is taken, none lost */
	err = symprov_session_prefetch(s, NULL, 0, opts, res);
	if (err)
		return err;
	as_listed = opts && (opts->flags & SYMPROV_PREFETCH_AS_LISTED);
	pthread_mutex_lock(&s->notes_lock);
	/* names stay the session's, build IDs are copied: notes may grow */
	notes = calloc(s->nr_notes ? s->nr_notes : 1, sizeof(*notes));
	objs = calloc(s->nr_notes ? s->nr_notes : 1, sizeof(*objs));
	if (notes && objs)
		nr = notes_take(s, build_id, build_id_len, as_listed, notes);
	pthread_mutex_unlock(&s->notes_lock);
	err = -ENOMEM;
	if (!notes || !objs)
		goto out;
	for (i = 0; i < nr; i++)
		objs[i] = (struct symprov_object){
			.kind = notes[i].kind,
			.build_id = notes[i].build_id,
			.build_id_len = notes[i].build_id_len,
			.name = notes[i].name,
		};
	err = symprov_session_prefetch(s, objs, nr, opts, res);
out:
	free(objs);
	free(notes);
	return err;
}

void session_notes_free(struct symprov_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_notes; i++)
		free(s->notes[i].name);
	free(s->notes);
}
