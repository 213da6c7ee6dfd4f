/* libproofpipe: the export attribute of the public C functions. The library
 * is built with hidden visibility (and a version script), so only what is
 * marked here is visible to programs that link it. */
#ifndef PROOFPIPE_EXPORT_H
#define PROOFPIPE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PROOFPIPE_API __attribute__((visibility("default")))
#else
#define PROOFPIPE_API
#endif

#endif /* PROOFPIPE_EXPORT_H */
