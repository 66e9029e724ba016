#ifndef WB_ENTRY_H
#define WB_ENTRY_H

/// Holds the entry at `path` below `dirfd` without opening or following it: an O_PATH |
/// O_NOFOLLOW descriptor on Linux (a link is held as the link itself, a folder as that very
/// folder, whatever replaces the name afterwards). With `beneath` the path is resolved like
/// `wb_openat2_beneath` (never leaving `dirfd`, never through a link). -1 with errno; ENOSYS
/// where there is no O_PATH.
int wb_hold_entry(int dirfd, const char *path, int beneath);

#endif
