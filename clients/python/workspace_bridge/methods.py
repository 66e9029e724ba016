"""Generated from schema/openrpc.json by clients/python/scripts/generate_types.py: do not edit."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, NoReturn, Optional, Union, overload

from .call import Call
from .connection import Connection, build_params
from .streams import Stream
from .types import (
    AppendResult,
    ApprovalPolicy,
    ApproveResult,
    BackgroundResult,
    BlobResult,
    BlockResult,
    CheckpointResult,
    CommandResult,
    Compaction,
    ConditionsResult,
    ConflictList,
    ContentDocumentUri,
    CreateFolderResult,
    DeferredList,
    DeleteResult,
    EchoResult,
    Empty,
    Etag,
    ExportResult,
    FileEncoding,
    FileInfo,
    FileUriResult,
    ForegroundResult,
    HostPath,
    ListResult,
    LoadResult,
    LogLevel,
    LogTraceParams,
    MessageInput,
    MessageList,
    MessageRole,
    MessageWhere,
    MessagesDeleted,
    MigrateResult,
    PendingToolCallInput,
    PolicyResult,
    ProgressParams,
    ProgressToken,
    PruneReport,
    QueueItem,
    QueueList,
    QueueReadyParams,
    ResolveResult,
    ResumeResult,
    RetentionPolicy,
    SearchResult,
    Session,
    SessionConfig,
    SessionDeferredReadyParams,
    SessionDeleted,
    SessionDidChangeStateParams,
    SessionExportResult,
    SessionId,
    SessionImportResult,
    SessionList,
    SessionSearchResult,
    SessionState,
    SessionStats,
    SessionTransitionError,
    SetRetentionResult,
    SettingsDidChangeParams,
    SettingsGetResult,
    SettingsResult,
    SettingsValues,
    SleepResult,
    StorageInfo,
    StorageLocation,
    TextDocumentContentRefreshParams,
    TextDocumentContentResult,
    Timestamp,
    ToolCallAnswer,
    ToolDefinition,
    ToolList,
    TransferResult,
    UsageReport,
    WatchResult,
    WindowLogMessageParams,
    WorkspaceDidChangeFilesParams,
    WorkspacePath,
    WriteResult,
)


class Methods(Connection):
    """
    A typed method for every request of the schema (initialize and shutdown are in Client, as they
    change its state), and typed notification streams. Each method writes its request at once and
    returns the Call.
    """

    def ping(self) -> Call[Empty]:
        """
        Liveness check.

        Sends ``ping``.
        """
        return self.request('ping')

    def save_file(
        self, *,
        path: WorkspacePath,
        data: str,
        encoding: Optional[FileEncoding] = None,
        create_parents: Optional[bool] = None,
        if_match: Optional[Etag] = None,
        exclusive: Optional[bool] = None,
    ) -> Call[WriteResult]:
        """
        Writes a whole file crash-safely (temp file in the same folder, fsync, rename, fsync of the
        folder) before answering.

        The file's permission bits are kept. A folder at the path → IsADirectory; a FIFO, socket or
        device at the path → NotARegularFile (data.type): never replaced. Errors: NotFound,
        AlreadyExists, IsADirectory, NotADirectory, PreconditionFailed, OutsideWorkspace,
        InvalidPath, SymlinkNotFollowed, NotARegularFile, PermissionDenied, NoSpace, ReadOnly,
        IOError.

        Sends ``saveFile``.
        """
        return self.request(
            'saveFile',
            build_params(
                {'path': path, 'data': data},
                {
                    'encoding': encoding,
                    'createParents': create_parents,
                    'ifMatch': if_match,
                    'exclusive': exclusive,
                },
            ),
        )

    def load_file(
        self, *,
        path: WorkspacePath,
        encoding: Optional[FileEncoding] = None,
        offset: Optional[int] = None,
        length: Optional[int] = None,
        start_line: Optional[int] = None,
        max_lines: Optional[int] = None,
        tail_lines: Optional[int] = None,
    ) -> Call[LoadResult]:
        """
        Reads a byte range or a window of lines of a file (at most 16 MiB a call), saying where the
        next window starts.

        Byte windows: offset and length. Line windows: startLine (1-based, default 1) and maxLines;
        or offset (a previous nextOffset) and maxLines; or tailLines (the last lines). Lines and
        length never go together (InvalidParams). maxLines 0, tailLines 0 and length 0 answer an
        empty window (data "") with the file's size and etag: 0 never means "all". Every answer says
        whether the file ended (eof) and, when it did not, where the next window starts (nextOffset;
        nextLine for a window asked by line number). A line window over 16 MiB stops at the last
        whole line that fits (eof false); one line longer than that → TooLarge. More than 16 MiB of
        bytes → TooLarge (data.size, data.limit). utf8: a binary file (a NUL byte in its first 8
        KiB) → NotText with data.reason "binary" and data.size, whatever the window (its bytes are
        never sent as text: read it with encoding base64); bytes that are not UTF-8, or a range
        starting inside a character → NotText; a range ending inside a character is cut back. A
        folder → IsADirectory. A FIFO, socket or device → NotARegularFile (data.type), answered at
        once: its bytes are never read or written.

        Sends ``loadFile``.
        """
        return self.request(
            'loadFile',
            build_params(
                {'path': path},
                {
                    'encoding': encoding,
                    'offset': offset,
                    'length': length,
                    'startLine': start_line,
                    'maxLines': max_lines,
                    'tailLines': tail_lines,
                },
            ),
        )

    def append_file(
        self, *,
        path: WorkspacePath,
        data: str,
        encoding: Optional[FileEncoding] = None,
        create_parents: Optional[bool] = None,
    ) -> Call[WriteResult]:
        """
        Appends to a file (created when missing), atomically per call, under an advisory lock shared
        by every server process.

        A folder → IsADirectory. A FIFO, socket or device → NotARegularFile (data.type), answered at
        once: its bytes are never read or written.

        Sends ``appendFile``.
        """
        return self.request(
            'appendFile',
            build_params(
                {'path': path, 'data': data},
                {
                    'encoding': encoding,
                    'createParents': create_parents,
                },
            ),
        )

    def list_files(
        self, *,
        path: Optional[WorkspacePath] = None,
        recursive: Optional[bool] = None,
        max_depth: Optional[int] = None,
        glob: Optional[str] = None,
        include_hidden: Optional[bool] = None,
        include_ignored: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Call[ListResult]:
        """
        Lists a folder in stable depth-first order (siblings sorted by the bytes of their names),
        `limit` entries at a time.

        Entries ignored by .gitignore and .ignore files (git's rules, any folder) and the root's
        .stignore (Syncthing's rules) are left out, and ignored folders not entered, unless
        includeIgnored. Links are listed as type symlink and never descended into; FIFOs, sockets
        and devices as fifo, socket, charDevice, blockDevice (listed, never opened). Not a folder →
        NotADirectory.

        Sends ``listFiles``.
        """
        return self.request(
            'listFiles',
            build_params(
                {},
                {
                    'path': path,
                    'recursive': recursive,
                    'maxDepth': max_depth,
                    'glob': glob,
                    'includeHidden': include_hidden,
                    'includeIgnored': include_ignored,
                    'limit': limit,
                    'cursor': cursor,
                },
            ),
        )

    def delete_file(
        self, *,
        path: WorkspacePath,
        recursive: Optional[bool] = None,
    ) -> Call[DeleteResult]:
        """
        Deletes a file, a link (not its target) or a folder (non-empty only with recursive).

        Non-empty folder without recursive → DirectoryNotEmpty; the root → PermissionDenied.

        Sends ``deleteFile``.
        """
        return self.request('deleteFile', build_params({'path': path}, {'recursive': recursive}))

    def move_file(
        self, *,
        from_: WorkspacePath,
        to: WorkspacePath,
        overwrite: Optional[bool] = None,
    ) -> Call[TransferResult]:
        """
        Moves (renames) a file, link or folder; missing parents of the destination are created.

        A folder into itself → InvalidArgument. Moving a link moves the link.

        Sends ``moveFile``.
        """
        return self.request(
            'moveFile',
            build_params({'from': from_, 'to': to}, {'overwrite': overwrite}),
        )

    def copy_file(
        self, *,
        from_: WorkspacePath,
        to: WorkspacePath,
        overwrite: Optional[bool] = None,
    ) -> Call[TransferResult]:
        """
        Copies a file, or a folder with its contents (links inside are skipped) to a destination
        that does not exist.

        A folder into itself → InvalidArgument; an existing destination without overwrite →
        AlreadyExists. A FIFO, socket or device as `from` → NotARegularFile. Inside a copied folder,
        links, FIFOs, sockets and devices are not copied: each is listed in skippedEntries (path,
        type, reason). A folder copy reports progress after each file ("copied N of M files (X of Y
        MiB)", the totals counted first); a folder copy that is cancelled or fails removes what it
        had copied (the destination is absent again).

        Sends ``copyFile``.
        """
        return self.request(
            'copyFile',
            build_params({'from': from_, 'to': to}, {'overwrite': overwrite}),
        )

    def create_folder(self, *, path: WorkspacePath) -> Call[CreateFolderResult]:
        """
        Creates a folder and its missing parents, like mkdir -p.

        An existing folder is fine. A file in the way (at the path or at a parent) → NotADirectory
        (or AlreadyExists for the path itself).

        Sends ``createFolder``.
        """
        return self.request('createFolder', build_params({'path': path}, {}))

    def get_file_info(
        self, *,
        path: WorkspacePath,
        hash: Optional[Literal['sha256']] = None,
    ) -> Call[FileInfo]:
        """
        What is known of one entry, without following links; optionally the content's SHA-256.

        The status of any entry, FIFOs and sockets included (their type says what they are). hash on
        anything but a file: a folder → IsADirectory, a link → SymlinkNotFollowed, a FIFO, socket or
        device → NotARegularFile (data.type), at once.

        Sends ``getFileInfo``.
        """
        return self.request('getFileInfo', build_params({'path': path}, {'hash': hash}))

    def search_files(
        self, *,
        query: str,
        path: Optional[WorkspacePath] = None,
        glob: Optional[str] = None,
        regex: Optional[bool] = None,
        case_sensitive: Optional[bool] = None,
        max_results: Optional[int] = None,
        include_hidden: Optional[bool] = None,
        include_ignored: Optional[bool] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[SearchResult]:
        """
        Searches file contents under a folder (or one file) in listing order, one match per matching
        line.

        Files ignored by .gitignore, .ignore and .stignore are not searched (ignored folders not
        entered; counted in ignored) unless includeIgnored. Binary files (a NUL in the first 8 KiB)
        and files over 256 MiB are skipped; hidden files only with includeHidden; links are never
        followed; FIFOs, sockets and devices are never opened, only counted in specialFilesSkipped
        (a path that is one → NotARegularFile). An empty query or a bad regex → InvalidArgument; a
        regex that reaches its engine's bound (it backtracks without end, e.g. (a+)+b) →
        LimitExceeded (reason matchLimit, data.line, data.path). Honours $/cancelRequest (-32800),
        also in the middle of a file.

        Sends ``searchFiles``. ``progress=True`` asks for ``$/progress`` (see Call.progress).
        """
        return self.request(
            'searchFiles',
            build_params(
                {'query': query},
                {
                    'path': path,
                    'glob': glob,
                    'regex': regex,
                    'caseSensitive': case_sensitive,
                    'maxResults': max_results,
                    'includeHidden': include_hidden,
                    'includeIgnored': include_ignored,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    def watch_files(self, *, glob: Optional[str] = None) -> Call[WatchResult]:
        """
        Starts workspace/didChangeFiles notifications for this client, filtered by glob when given.

        Sends ``watchFiles``.
        """
        return self.request('watchFiles', build_params({}, {'glob': glob}))

    def unwatch_files(self) -> Call[WatchResult]:
        """
        Stops workspace/didChangeFiles notifications for this client.

        Sends ``unwatchFiles``.
        """
        return self.request('unwatchFiles')

    def get_file_uri(self, *, path: WorkspacePath) -> Call[FileUriResult]:
        """
        The file: URI of a workspace entry, for a host process on the same machine (not an agent
        tool).

        For a host process on the same machine.

        Sends ``getFileUri``.
        """
        return self.request('getFileUri', build_params({'path': path}, {}))

    def import_file(
        self, *,
        source: HostPath,
        path: WorkspacePath,
        overwrite: Optional[bool] = None,
    ) -> Call[WriteResult]:
        """
        Copies a host file into the workspace at disk speed, atomically and durably like saveFile
        (host only).

        An existing destination without overwrite → AlreadyExists; a missing source → NotFound. A
        source that is a FIFO, socket or device on the host → NotARegularFile, at once (never waits
        for a writer).

        For a host process on the same machine.

        Sends ``importFile``.
        """
        return self.request(
            'importFile',
            build_params({'source': source, 'path': path}, {'overwrite': overwrite}),
        )

    def export_file(
        self, *,
        path: WorkspacePath,
        destination: HostPath,
        overwrite: Optional[bool] = None,
    ) -> Call[ExportResult]:
        """
        Copies a workspace file to a host path at disk speed (host only).

        An existing destination without overwrite → AlreadyExists. A workspace file that is a FIFO,
        socket or device, or a host destination that is one → NotARegularFile.

        For a host process on the same machine.

        Sends ``exportFile``.
        """
        return self.request(
            'exportFile',
            build_params({'path': path, 'destination': destination}, {'overwrite': overwrite}),
        )

    def get_storage_info(self) -> Call[StorageInfo]:
        """
        Where the workspace is (local or cloud), whether the cloud root is there, the first-run
        state, the detected sync engine, usage and free space, and any unfinished migration.

        usage is kept current by a watcher on the active root (the first call walks it once).
        freeBytes is the active root's file system's free space.

        Sends ``getStorageInfo``.
        """
        return self.request('getStorageInfo')

    def choose_storage(
        self, *,
        location: Literal['local', 'cloud', 'decideLater'],
    ) -> Call[StorageInfo]:
        """
        Makes the per-machine storage choice (persisted in the configuration folder, never inside a
        synced root); answers like getStorageInfo.

        cloud needs an available cloud root (CloudUnavailable otherwise). decideLater uses local and
        keeps needsChoice true. Waits for every earlier request and holds later ones back. Moves no
        files (see migrate). The current choice again is a no-op (nothing written) answered with
        alreadyActive true.

        Sends ``chooseStorage``.
        """
        return self.request('chooseStorage', build_params({'location': location}, {}))

    def migrate(
        self, *,
        to: StorageLocation,
        mode: Optional[Literal['copy', 'move']] = None,
        on_conflict: Optional[Literal['keepBoth', 'skip', 'overwrite', 'fail']] = None,
        dry_run: Optional[bool] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[MigrateResult]:
        """
        Copies or moves every file of the active root to the other one, verified (SHA-256) and
        resumable; switches the storage choice once, at the end.

        A manifest of the source, a free-space check (InsufficientSpace with data.needed and
        data.free), then per file: staging inside the target (.wb-staging.nosync), fsync, re-hash,
        rename into place, a journal record, and in move mode deleting the source file. Folders
        (also empty ones) are recreated. Identical files are skipped; different content is a
        conflict handled per onConflict (fail: AlreadyExists with data.conflicts before anything is
        written). Placeholders are listed in notDownloaded. Links, FIFOs, sockets and devices are
        not migrated and each is listed in skippedEntries; in move mode they stay in the old root (a
        move never deletes what it did not copy) and the choice still switches. $/cancelRequest:
        -32800, no partial file visible, choice unchanged, getStorageInfo shows pendingMigration;
        the next migrate with the same to and mode resumes. Migrating to the active root with
        nothing pending (a retry of a migration that finished) succeeds and does nothing:
        alreadyActive true, copied 0, switched false. Waits for every earlier request and holds
        later ones back.

        Sends ``migrate``. ``progress=True`` asks for ``$/progress`` (see Call.progress).
        """
        return self.request(
            'migrate',
            build_params(
                {'to': to},
                {
                    'mode': mode,
                    'onConflict': on_conflict,
                    'dryRun': dry_run,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    def list_conflicts(self, *, path: Optional[WorkspacePath] = None) -> Call[ConflictList]:
        """
        Every file under `path` that has sync-engine conflict copies, with its copies.

        Recognised: Syncthing `x.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.txt`, Nextcloud `x (conflicted
        copy [USER ]YYYY-MM-DD HHMMSS).txt`, Dropbox `x (NAME's conflicted copy YYYY-MM-DD).txt`,
        Unison `x (conflict_on_YYYY-MM-DD).txt`, rclone bisync `x.txt..path1` and `x.txt.conflict1`.

        Sends ``listConflicts``.
        """
        return self.request('listConflicts', build_params({}, {'path': path}))

    def resolve_conflict(
        self, *,
        path: WorkspacePath,
        keep: Optional[Literal['current', 'copy', 'both']] = None,
        copy_path: Optional[WorkspacePath] = None,
        merged_data: Optional[str] = None,
        encoding: Optional[FileEncoding] = None,
    ) -> Call[ResolveResult]:
        """
        Settles a conflict: keep the current file (the copies are deleted), a copy (it replaces the
        file atomically), both (the copies become ordinary files `x (conflict).txt`), or save
        mergedData crash-safely and delete the copies.

        A file without conflict copies → NotFound. keep copy with several copies needs copyPath
        (InvalidArgument otherwise); a copyPath that is not a copy of the file → NotFound.

        Sends ``resolveConflict``.
        """
        return self.request(
            'resolveConflict',
            build_params(
                {'path': path},
                {
                    'keep': keep,
                    'copyPath': copy_path,
                    'mergedData': merged_data,
                    'encoding': encoding,
                },
            ),
        )

    def download_file(
        self, *,
        path: WorkspacePath,
        timeout_ms: Optional[int] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[WriteResult]:
        """
        Waits until a placeholder's content is on this machine (on macOS it starts the download).

        Answers at once for a file that is already here. Still not downloaded after timeoutMs →
        NotDownloaded (data.retryAfterMs). Honours $/cancelRequest.

        Sends ``downloadFile``. ``progress=True`` asks for ``$/progress`` (see Call.progress).
        """
        return self.request(
            'downloadFile',
            build_params(
                {'path': path},
                {
                    'timeoutMs': timeout_ms,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    def session_create(
        self, *,
        title: Optional[str] = None,
        agent_type: Optional[str] = None,
        config: Optional[SessionConfig] = None,
        metadata: Optional[Any] = None,
        preset: Optional[Literal['research', 'quickChat']] = None,
        approval_policy: Optional[ApprovalPolicy] = None,
        user_confirmed: Optional[bool] = None,
        parent_id: Optional[SessionId] = None,
    ) -> Call[Session]:
        """
        Creates a session (state idle), durable before the answer, owned by this device (lease); a
        preset, the agent type's tier, the approval policy and the device's conditions shape it.

        A bad config (wrong types, negative limits) → -32602 on config; a bad approvalPolicy →
        -32602 on approvalPolicy. The config is resolved once: members given in config win over the
        preset, the preset over the agent type's tier (quickLookup → fast; chatAssistant,
        researchAgent, introductionWriter → balanced; profileGenerator → powerful), then the device
        policy caps the tier (Low Power Mode: fast; an expensive network: balanced). preset research
        is heavy network work: when the device policy defers heavy work → Deferred (data.reason,
        queued false, confirmable), nothing created, unless userConfirmed.

        Sends ``session/create``.
        """
        return self.request(
            'session/create',
            build_params(
                {},
                {
                    'title': title,
                    'agentType': agent_type,
                    'config': config,
                    'metadata': metadata,
                    'preset': preset,
                    'approvalPolicy': approval_policy,
                    'userConfirmed': user_confirmed,
                    'parentId': parent_id,
                },
            ),
        )

    def session_get(self, *, id: SessionId) -> Call[Session]:
        """
        One session.

        Unknown id → NotFound (data.id). Also shows the lineage (parentId, forkedAt), every
        compaction, the approval policy, pending approvals, deferred tool calls, and bytesOnDisk.

        Sends ``session/get``.
        """
        return self.request('session/get', build_params({'id': id}, {}))

    def session_list(
        self, *,
        state: Optional[SessionState] = None,
        agent_type: Optional[str] = None,
        parent_id: Optional[SessionId] = None,
        title_contains: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        updated_since: Optional[Timestamp] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        with_bytes_on_disk: Optional[bool] = None,
    ) -> Call[SessionList]:
        """
        Sessions most recently changed first (then by id), a page at a time, filtered by state,
        agent type, parent, title, metadata keys or change time; answered from each session's
        metadata index, no journal read.

        A cursor that cannot be read (or from before this order: c1:…) → InvalidArgument. The order
        is total, so a page neither repeats nor skips a session that did not change meanwhile (one
        that changed moves to the front). Each session folder keeps listing.json, the facts listed,
        valid while the journal keeps the size and time it was made from: a session changed by
        another device or an older version is read once and its index written again. An updatedSince
        that is not an ISO 8601 time → -32602.

        Sends ``session/list``.
        """
        return self.request(
            'session/list',
            build_params(
                {},
                {
                    'state': state,
                    'agentType': agent_type,
                    'parentId': parent_id,
                    'titleContains': title_contains,
                    'metadata': metadata,
                    'updatedSince': updated_since,
                    'limit': limit,
                    'cursor': cursor,
                    'withBytesOnDisk': with_bytes_on_disk,
                },
            ),
        )

    def session_messages(
        self, *,
        id: SessionId,
        after: Optional[str] = None,
        before: Optional[str] = None,
        last: Optional[int] = None,
        where: Optional[MessageWhere] = None,
        limit: Optional[int] = None,
        include_compacted: Optional[bool] = None,
    ) -> Call[MessageList]:
        """
        Stored messages in append order: those after `after` and before `before`, optionally only
        those matching `where`, the first `limit` (or the `last` n); a compacted run shows as its
        summary, or (includeCompacted) the summary followed by its originals.

        An `after` or `before` the session does not have → InvalidArgument. A compacted message's id
        is no longer a cursor: use the summary's id (the compaction's). hasMore says whether more
        match beyond the page; nextAfter (forward) or nextBefore (with last) is where to go on.
        Without where only the page's records are read; with where the journal is read in chunks
        until the page is full. A bad where → -32602 on where.

        Sends ``session/messages``.
        """
        return self.request(
            'session/messages',
            build_params(
                {'id': id},
                {
                    'after': after,
                    'before': before,
                    'last': last,
                    'where': where,
                    'limit': limit,
                    'includeCompacted': include_compacted,
                },
            ),
        )

    def session_delete(self, *, id: SessionId) -> Call[SessionDeleted]:
        """
        Removes a session and its folder (needs the lease).

        Sends ``session/delete``.
        """
        return self.request('session/delete', build_params({'id': id}, {}))

    def session_transition(
        self, *,
        id: SessionId,
        to: SessionState,
        error: Optional[SessionTransitionError] = None,
    ) -> Call[Session]:
        """
        Moves a session along the state table; sends session/didChangeState.

        A move to the state the session is already in is a no-op (nothing written, no notification;
        the answer is the session). Any other move not in the table → InvalidTransition with
        data.from, data.to and data.allowed (the states `from` may move to). Another device holding
        the lease → SessionLocked.

        Sends ``session/transition``.
        """
        return self.request(
            'session/transition',
            build_params({'id': id, 'to': to}, {'error': error}),
        )

    def session_append_messages(
        self, *,
        id: SessionId,
        messages: List[MessageInput],
    ) -> Call[AppendResult]:
        """
        Appends messages durably (one record: all or, after a crash, none); a message id seen before
        is not stored twice.

        Sends ``session/appendMessages``.
        """
        return self.request(
            'session/appendMessages',
            build_params({'id': id, 'messages': messages}, {}),
        )

    def session_record_usage(
        self, *,
        id: SessionId,
        input_tokens: int,
        output_tokens: int,
        model: Optional[str] = None,
    ) -> Call[UsageReport]:
        """
        Counts one turn and prices it; going over a limit fails the session (BudgetExceeded) in the
        same durable step.

        Prices per million tokens: fast $0.25 in / $1.25 out, balanced $3 / $15, powerful $15 / $75
        (unless <config dir>/pricing.json overrides them). On a completed session → InvalidArgument;
        on one that failed over its budget → BudgetExceeded.

        Sends ``session/recordUsage``.
        """
        return self.request(
            'session/recordUsage',
            build_params(
                {'id': id, 'inputTokens': input_tokens, 'outputTokens': output_tokens},
                {
                    'model': model,
                },
            ),
        )

    def session_checkpoint(
        self, *,
        id: SessionId,
        pending_tool_calls: Optional[List[PendingToolCallInput]] = None,
        partial_results: Optional[Any] = None,
    ) -> Call[CheckpointResult]:
        """
        Records the front end's pending tool calls and partial results, durably.

        Sends ``session/checkpoint``.
        """
        return self.request(
            'session/checkpoint',
            build_params(
                {'id': id},
                {
                    'pendingToolCalls': pending_tool_calls,
                    'partialResults': partial_results,
                },
            ),
        )

    def session_resume(self, *, id: SessionId) -> Call[ResumeResult]:
        """
        What the front end needs to continue (the last 50 messages, pending tool calls, partial
        results); moves a backgrounded session to running.

        Pending approvals (session.pendingApprovals) and deferred tool calls
        (session.deferredToolCalls) come with the session: a front end shows them on resume.

        Sends ``session/resume``.
        """
        return self.request('session/resume', build_params({'id': id}, {}))

    def session_call_tool(
        self, *,
        id: SessionId,
        tool_call_id: str,
        name: str,
        arguments: Dict[str, Any],
        user_confirmed: Optional[bool] = None,
    ) -> Call[ToolCallAnswer]:
        """
        Runs one tool of agent/listTools for a session: intent journaled before, result after; the
        same toolCallId again returns the recorded result without running it.

        An unknown tool name → -32602 (data.field name). Bad arguments (against the tool's
        inputSchema) and domain failures are results with isError true and a message the model can
        act on. A call cut off by a crash shows in session/get pendingToolCalls with status
        interrupted. Before running: under the session's approval policy (which weighs what this
        call does: its effect, from the tool and its arguments) a call that needs consent answers
        {pendingApproval} and runs nothing (answer with session/approve; the same call again answers
        the same until then, and the decision after; the same toolCallId for another tool or other
        arguments → InvalidArgument, data {toolCallId, approvalId?, name}, nothing run); a refused
        call answers an error result (code ApprovalDenied). Then the device policy: a heavy tool
        (ToolDefinition.heavy) on a low battery (< 20%, not charging) or a serious/critical thermal
        state, or a heavy network tool on an expensive or Low Data network → Deferred (data.reason,
        queued true, confirmable true), recorded in session/get deferredToolCalls; send the same
        call again (with userConfirmed true, or once the conditions allow) to run it.

        Sends ``session/callTool``.
        """
        return self.request(
            'session/callTool',
            build_params(
                {'id': id, 'toolCallId': tool_call_id, 'name': name, 'arguments': arguments},
                {
                    'userConfirmed': user_confirmed,
                },
            ),
        )

    def session_fork(
        self, *,
        id: SessionId,
        at_message_id: Optional[str] = None,
        title: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
    ) -> Call[Session]:
        """
        A new session holding the history up to and including message atMessageId (default: all),
        with parentId and forkedAt; both sessions go on independently.

        Carried over: messages (compacted runs with their summary and originals), results of tool
        calls finished before the cut, config, agent type, metadata, approval policy and remembered
        decisions. Not carried: usage (the fork's budget starts fresh), state (idle), unfinished
        calls, calls finished after the cut, checkpoints and partial results, pending approvals,
        deferred calls. The fork exists whole or not at all; it needs no lease on the parent (a
        device can fork a session another device owns). Unknown atMessageId → InvalidArgument.

        Sends ``session/fork``.
        """
        return self.request(
            'session/fork',
            build_params(
                {'id': id},
                {
                    'atMessageId': at_message_id,
                    'title': title,
                    'metadata': metadata,
                },
            ),
        )

    def session_compact(
        self, *,
        id: SessionId,
        through_message_id: str,
        from_message_id: Optional[str] = None,
        summary: Any,
        role: Optional[MessageRole] = None,
        by: Optional[str] = None,
    ) -> Call[Compaction]:
        """
        Replaces a run of messages by a summary the client's model wrote, durably and reversibly;
        the compaction is listed with who/when/what in session/get.

        The run ends with throughMessageId and starts with fromMessageId, or just after the previous
        compaction, or at the first message. It holds messages only (undo a compaction inside it
        first) → InvalidArgument otherwise. session/messages then shows the summary in the run's
        place (role system unless given; id = the compaction's id; compaction says what it
        replaced). When the originals still in the journal reach a quarter of it, the journal is
        rewritten crash-safely with them moved to the session's archive, so recovery reads only what
        the session shows.

        Sends ``session/compact``.
        """
        return self.request(
            'session/compact',
            build_params(
                {'id': id, 'throughMessageId': through_message_id, 'summary': summary},
                {
                    'fromMessageId': from_message_id,
                    'role': role,
                    'by': by,
                },
            ),
        )

    def session_uncompact(self, *, id: SessionId, compaction_id: str) -> Call[Compaction]:
        """
        Restores the originals of a compaction in its place; the compaction stays listed with
        undoneAt.

        Unknown compactionId → NotFound; originals dropped by the retention policy →
        InvalidArgument.

        Sends ``session/uncompact``.
        """
        return self.request(
            'session/uncompact',
            build_params({'id': id, 'compactionId': compaction_id}, {}),
        )

    def session_get_retention(self) -> Call[RetentionPolicy]:
        """
        The workspace's retention policy (only the limits that are set; {} = keep everything).

        Sends ``session/getRetention``.
        """
        return self.request('session/getRetention')

    def session_set_retention(
        self, *,
        max_bytes_per_session: Optional[Union[int, None]] = None,
        keep_compacted_originals_seconds: Optional[Union[int, None]] = None,
        keep_ended_sessions: Optional[Union[int, None]] = None,
    ) -> Call[SetRetentionResult]:
        """
        Replaces the workspace's retention policy (crash-safely) and applies it at once.

        A limit left out (or null) is no limit; a bad value → -32602 on that field.

        Sends ``session/setRetention``.
        """
        return self.request(
            'session/setRetention',
            build_params(
                {},
                {
                    'maxBytesPerSession': max_bytes_per_session,
                    'keepCompactedOriginalsSeconds': keep_compacted_originals_seconds,
                    'keepEndedSessions': keep_ended_sessions,
                },
            ),
        )

    def session_prune(self) -> Call[PruneReport]:
        """
        Applies the retention policy to every session this device can change now (another owner's
        are left alone).

        Every drop is first a durable record, then the crash-safe rewrite: a SIGKILL at any moment
        loses nothing that was acknowledged and not meant to be pruned. Also sweeps hidden folders
        of crashed forks, imports and deletions an hour old.

        Sends ``session/prune``.
        """
        return self.request('session/prune')

    def session_export(
        self, *,
        id: SessionId,
        path: Optional[WorkspacePath] = None,
        overwrite: Optional[bool] = None,
    ) -> Call[SessionExportResult]:
        """
        Writes the session as one self-describing JSON file in the workspace (default
        Chats/<id>.json), never over an existing file unless overwrite is true: messages (originals
        of compactions included), tool calls and results, usage, lineage, compactions, approvals and
        a SHA-256 checksum.

        Path errors as for saveFile. An existing file at the path → AlreadyExists (decided
        atomically with the write; the file is unchanged); with overwrite: true it is replaced
        crash-safely. The format: {format: "workspace-bridge.session", version: 1, session,
        messages, compactions, toolCalls, checksum: {algorithm: "sha256", value}}, times in
        nanoseconds; value is the SHA-256 of the file with its 64 digits zeroed.

        Sends ``session/export``.
        """
        return self.request(
            'session/export',
            build_params({'id': id}, {'path': path, 'overwrite': overwrite}),
        )

    def session_import(self, *, path: WorkspacePath) -> Call[SessionImportResult]:
        """
        Creates a session from an export file in the workspace; it round-trips exactly (export →
        import → export gives the same document but for the id and checksum).

        The file is read as if an attacker wrote it. The whole session is built and checked in
        memory before anything is written (the file's messages and tool calls read one at a time, so
        memory stays within a small multiple of the file's size; files over 256 MiB → TooLarge as
        for readFile), then installed with one rename: never half-imported. A damaged file →
        InvalidArgument with data.reason damaged and a message naming the fault: not JSON, checksum
        mismatch, missing parts, a state that is not one of the six, usage that is negative,
        fractional, not finite or beyond the caps (tokens 10^15, turns 10^9, cost 10^11 USD), a
        message, compaction or tool call id that occurs twice, records that do not replay. Another
        format → foreign; another version → unsupportedVersion; path errors as for readFile. Consent
        is never imported: decided approvals (allowed or denied) and remembered decisions are
        dropped and counted in notImported; pending approvals stay pending (visible in the session's
        pendingApprovals, answered by this workspace's user). The file's id is kept when it is free
        in this workspace, else the session gets a new one (replacedId); imports of one file running
        at the same time (one connection or several processes) each get their own id.

        Sends ``session/import``.
        """
        return self.request('session/import', build_params({'path': path}, {}))

    def session_set_approval_policy(
        self, *,
        id: SessionId,
        approval_policy: ApprovalPolicy,
    ) -> Call[Session]:
        """
        Changes the session's approval policy, durably; calls already pending stay pending.

        A bad policy → -32602 on approvalPolicy.

        Sends ``session/setApprovalPolicy``.
        """
        return self.request(
            'session/setApprovalPolicy',
            build_params({'id': id, 'approvalPolicy': approval_policy}, {}),
        )

    def session_approve(
        self, *,
        id: SessionId,
        tool_call_id: str,
        decision: Literal['allow', 'deny'],
        remember: Optional[bool] = None,
    ) -> Call[ApproveResult]:
        """
        Answers a pending approval: allow runs the call (through the device policy) and answers its
        result; deny records an error result (ApprovalDenied) and runs nothing. remember applies the
        decision to later calls of the same tool with the same effect in the session. An approval an
        MCP client asked for (origin mcp) is only decided: that client's identical call then runs or
        is refused.

        No approval for toolCallId → NotFound; answering again the other way → InvalidArgument. An
        allowed call the device policy defers → Deferred (queued): send the same session/callTool
        again later.

        Sends ``session/approve``.
        """
        return self.request(
            'session/approve',
            build_params(
                {'id': id, 'toolCallId': tool_call_id, 'decision': decision},
                {
                    'remember': remember,
                },
            ),
        )

    def session_list_deferred(self) -> Call[DeferredList]:
        """
        Every tool call the device policy deferred, across the workspace's sessions, oldest first,
        with whether it would run now.

        Send the same session/callTool again to run one (with userConfirmed true to run it despite
        the conditions).

        Sends ``session/listDeferred``.
        """
        return self.request('session/listDeferred')

    def agent_list_tools(self) -> Call[ToolList]:
        """
        The one agent tool table, in a stable order: the user's file methods (not the host-only
        ones), read_multiple_files, read_context/update_context and append_journal.

        heavy marks the tools the device policy treats as heavy work (declared once, in x-tool-heavy
        beside x-tool-table): search_files, which reads every file of the workspace.

        Sends ``agent/listTools``.
        """
        return self.request('agent/listTools')

    def host_did_enter_background(self) -> Call[BackgroundResult]:
        """
        Checkpoints every running or waitingForUser session and moves it to backgrounded; answers
        when all of it is durable.

        Sends ``host/didEnterBackground``.
        """
        return self.request('host/didEnterBackground')

    def host_will_enter_foreground(self) -> Call[ForegroundResult]:
        """
        The backgrounded sessions with their last checkpoints, for the front end to resume.

        Sends ``host/willEnterForeground``.
        """
        return self.request('host/willEnterForeground')

    def host_set_conditions(
        self, *,
        network: Literal['offline', 'wifi', 'cellular', 'wired'],
        is_expensive: Optional[bool] = None,
        is_constrained: Optional[bool] = None,
        battery_level: Optional[float] = None,
        is_charging: Optional[bool] = None,
        is_low_power_mode: Optional[bool] = None,
        thermal_state: Optional[Literal['nominal', 'fair', 'serious', 'critical']] = None,
    ) -> Call[PolicyResult]:
        """
        Reports the device's conditions; answers the policy that follows. From offline to online
        sends queue/ready with the due items.

        Battery under 20% and not charging, or a serious or critical thermal state: deferHeavyWork.
        Low Power Mode: maxModelTier fast. An expensive network: at most balanced. Offline:
        allowNetworkTools false, with a message listing what still works.

        Sends ``host/setConditions``.
        """
        return self.request(
            'host/setConditions',
            build_params(
                {'network': network},
                {
                    'isExpensive': is_expensive,
                    'isConstrained': is_constrained,
                    'batteryLevel': battery_level,
                    'isCharging': is_charging,
                    'isLowPowerMode': is_low_power_mode,
                    'thermalState': thermal_state,
                },
            ),
        )

    def host_get_conditions(self) -> Call[ConditionsResult]:
        """
        The conditions last reported (online, unmetered before any) and their policy.

        Sends ``host/getConditions``.
        """
        return self.request('host/getConditions')

    def queue_enqueue(
        self, *,
        kind: str,
        payload: Any,
        idempotency_key: str,
        requires_network: Optional[bool] = None,
    ) -> Call[QueueItem]:
        """
        Adds work for when the network returns, durably; the same idempotencyKey returns the first
        item and never makes a second.

        Sends ``queue/enqueue``.
        """
        return self.request(
            'queue/enqueue',
            build_params(
                {'kind': kind, 'payload': payload, 'idempotencyKey': idempotency_key},
                {
                    'requiresNetwork': requires_network,
                },
            ),
        )

    def queue_list(self) -> Call[QueueList]:
        """
        Every item, in enqueue order.

        Sends ``queue/list``.
        """
        return self.request('queue/list')

    def queue_complete(self, *, id: str, result: Optional[Any] = None) -> Call[QueueItem]:
        """
        Marks an item completed.

        Sends ``queue/complete``.
        """
        return self.request('queue/complete', build_params({'id': id}, {'result': result}))

    def queue_fail(self, *, id: str, error: Any, retry: Optional[bool] = None) -> Call[QueueItem]:
        """
        Records a failed attempt: with retry the item is pending again, else failed (final).

        Sends ``queue/fail``.
        """
        return self.request(
            'queue/fail',
            build_params({'id': id, 'error': error}, {'retry': retry}),
        )

    def settings_get(self, *, keys: Optional[List[str]] = None) -> Call[SettingsGetResult]:
        """
        Synced settings: the values of `keys` (default: every key) merged from every device, and
        when the store last changed.

        Settings live in the active root's .workspace/settings/, one file per device, merged per key
        (the latest write by hybrid logical clock wins). The first settings/* request of a
        connection starts settings/didChange notifications.

        Sends ``settings/get``.
        """
        return self.request('settings/get', build_params({}, {'keys': keys}))

    def settings_set(self, *, values: SettingsValues) -> Call[SettingsResult]:
        """
        Sets keys to values (any JSON but null), durably and for every device; answers every value
        after the change.

        All or nothing: the change is checked against the limits on the merged result first
        (QuotaExceeded with data.quota keys or bytes, data.limit, data.size; a change that does not
        grow an exceeded measure is allowed), keys against 1 to 64 bytes (InvalidArgument). A null
        value is InvalidParams (settings/remove removes keys). Not echoed as settings/didChange to
        this connection.

        Sends ``settings/set``.
        """
        return self.request('settings/set', build_params({'values': values}, {}))

    def settings_remove(self, *, keys: List[str]) -> Call[SettingsResult]:
        """
        Removes keys (for every device: a removal later than another device's write of the key
        wins); answers every value after the change.

        Keys without a value are ignored. Not echoed as settings/didChange to this connection.

        Sends ``settings/remove``.
        """
        return self.request('settings/remove', build_params({'keys': keys}, {}))

    def debug_echo(self, *, value: Any) -> Call[EchoResult]:
        """
        Returns the value sent.

        Only with --enable-debug-methods.

        Sends ``debug/echo``.
        """
        return self.request('debug/echo', build_params({'value': value}, {}))

    def debug_sleep(
        self, *,
        ms: int,
        key: Optional[str] = None,
        access: Optional[Literal['read', 'write']] = None,
        label: Optional[str] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[SleepResult]:
        """
        Sleeps, checking for cancellation about every millisecond; reports progress when
        workDoneToken is given.

        Only with --enable-debug-methods.

        Sends ``debug/sleep``. ``progress=True`` asks for ``$/progress`` (see Call.progress).
        """
        return self.request(
            'debug/sleep',
            build_params(
                {'ms': ms},
                {
                    'key': key,
                    'access': access,
                    'label': label,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    def debug_block(
        self, *,
        path: str,
        access: Optional[Literal['read', 'write']] = None,
    ) -> Call[BlockResult]:
        """
        Reads a host file (a FIFO nobody writes to) with blocking system calls to its end: a handler
        stuck where no cancellation flag reaches it, as on a hung mount.

        Only with --enable-debug-methods.

        Sends ``debug/block``.
        """
        return self.request('debug/block', build_params({'path': path}, {'access': access}))

    def debug_fail(self, *, kind: Literal['internal', 'domain']) -> Call[NoReturn]:
        """
        Always fails: kind internal → -32603 InternalError, domain → -32803 with a domain data.code.

        Only with --enable-debug-methods.

        Sends ``debug/fail``.
        """
        return self.request('debug/fail', build_params({'kind': kind}, {}))

    def debug_log(self, *, level: LogLevel, message: str) -> Call[Empty]:
        """
        Logs a record through the server's logger.

        Only with --enable-debug-methods.

        Sends ``debug/log``.
        """
        return self.request('debug/log', build_params({'level': level, 'message': message}, {}))

    def debug_blob(self, *, bytes: int) -> Call[BlobResult]:
        """
        Returns text of exactly the requested number of bytes.

        Only with --enable-debug-methods.

        Sends ``debug/blob``.
        """
        return self.request('debug/blob', build_params({'bytes': bytes}, {}))

    def session_delete_messages(
        self, *,
        id: SessionId,
        message_ids: Optional[List[str]] = None,
        where: Optional[MessageWhere] = None,
        last: Optional[int] = None,
    ) -> Call[MessagesDeleted]:
        """
        Deletes messages chosen by exactly one of messageIds, where or last, durably (one journal
        record): session/messages, export, fork, compaction, statistics and sync see the session
        without them.

        Not exactly one selector → -32602. Ids the session does not show (unknown, already deleted,
        inside a compacted run) are left out of deleted; a compaction's summary is never deleted;
        deleting nothing records nothing and is not an error. Needs the session's lease
        (SessionLocked otherwise). A deleted id is free again: appending a message with it stores it
        anew.

        Sends ``session/deleteMessages``.
        """
        return self.request(
            'session/deleteMessages',
            build_params({'id': id}, {'messageIds': message_ids, 'where': where, 'last': last}),
        )

    def session_update(
        self, *,
        id: SessionId,
        title: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
    ) -> Call[Session]:
        """
        Sets a session's title and merges metadata into its own key by key (a null value removes the
        key), in one durable commit; answers the session.

        Metadata that was not an object becomes one. Nothing to change records nothing. Metadata
        over 65,536 bytes encoded after the merge → TooLarge. Needs the session's lease
        (SessionLocked otherwise).

        Sends ``session/update``.
        """
        return self.request(
            'session/update',
            build_params({'id': id}, {'title': title, 'metadata': metadata}),
        )

    def session_stats(self, *, id: SessionId) -> Call[SessionStats]:
        """
        Per-turn statistics of a session: messages, token usage (by model) and tool calls (by name
        and outcome) of each turn, from one read of its journal, with totals.

        A turn opens at each user message the session still shows; usage and tool calls belong to
        the turn open when they were recorded (a call to the turn it began in). What came before the
        first user message is a turn of its own (no userMessageId) when it holds anything. Unknown
        id → NotFound.

        Sends ``session/stats``.
        """
        return self.request('session/stats', build_params({'id': id}, {}))

    def workspace_text_document_content(
        self, *,
        uri: ContentDocumentUri,
    ) -> Call[TextDocumentContentResult]:
        """
        LSP 3.18: the read-only text of a wsb: document (a file, a file at an etag, a conflict copy,
        a session's transcript or export).

        A URI that is not wsb:, of an unknown kind, or with a bad escape → InvalidParams (data.field
        "uri"). A file at an etag it no longer has → PreconditionFailed with data.currentEtag. Bytes
        that are not UTF-8 → NotText; more than 16 MiB → TooLarge (a transcript is cut at a message
        boundary instead, and says so). `wsb:/conflict/` of a name that is not a conflict copy →
        InvalidArgument; a copy whose original is gone → NotFound. A missing session → NotFound.
        Path errors as for loadFile. To a client that declared
        capabilities.workspace.textDocumentContent, the server sends the request
        workspace/textDocumentContent/refresh {uri} (params: TextDocumentContentRefreshParams) when
        a document it read changes, by any writer (at most 256 documents followed, the oldest read
        forgotten first).

        Sends ``workspace/textDocumentContent``.
        """
        return self.request('workspace/textDocumentContent', build_params({'uri': uri}, {}))

    def workspace_execute_command(
        self, *,
        command: str,
        arguments: Optional[List[Any]] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[CommandResult]:
        """
        LSP: runs command `wsb.METHOD` as the request METHOD with `arguments[0]` as its params, for
        editors that send no custom request.

        The commands are initialize's capabilities.executeCommandProvider.commands: every custom
        request of the method table (files, storage, sessions, host, settings). The same declaration
        decodes the params (errors name `arguments[0].FIELD`), orders the call with the others and
        runs it; the answer is that method's result or error, as if it had been sent directly. An
        unknown command → InvalidParams (data.field "command"); more than one argument →
        InvalidParams (data.field "arguments"). A workDoneToken reports that method's progress.

        Sends ``workspace/executeCommand``. ``progress=True`` asks for ``$/progress`` (see
        Call.progress).
        """
        return self.request(
            'workspace/executeCommand',
            build_params(
                {'command': command},
                {
                    'arguments': arguments,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    def session_search(
        self, *,
        query: str,
        regex: Optional[bool] = None,
        case_sensitive: Optional[bool] = None,
        session_ids: Optional[List[SessionId]] = None,
        roles: Optional[List[MessageRole]] = None,
        since: Optional[Timestamp] = None,
        until: Optional[Timestamp] = None,
        states: Optional[List[SessionState]] = None,
        agent_types: Optional[List[str]] = None,
        include_compacted: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        time_limit_ms: Optional[int] = None,
        work_done_token: Optional[ProgressToken] = None,
        progress: bool = False,
    ) -> Call[SessionSearchResult]:
        """
        Searches every session's messages and tool calls (literal or regex, any case), filtered by
        session, role, time, state and agent type; ranked hits with snippets and match offsets, a
        page at a time.

        What sessions show is what is found: visible messages, compactions' summaries and, with
        includeCompacted, the originals retention still keeps; what retention pruned or a deleted
        session held is never found. Tool calls are found by name, arguments and result as the
        journal keeps them; a call whose approval was denied shows its name and refusal, never its
        arguments, and a call still waiting for approval is not searched. An empty query, a regex
        that does not compile (reason badPattern) or a cursor of another search (reason
        cursorMismatch) → InvalidArgument; a query over 1024 bytes (queryBytes), a regex that
        reaches its engine's bound (matchLimit: it backtracks without end, e.g. (a+)+b) or a search
        over timeLimitMs (time) → LimitExceeded. Honours $/cancelRequest (-32800) and reports
        $/progress (sessions searched).

        Sends ``session/search``. ``progress=True`` asks for ``$/progress`` (see Call.progress).
        """
        return self.request(
            'session/search',
            build_params(
                {'query': query},
                {
                    'regex': regex,
                    'caseSensitive': case_sensitive,
                    'sessionIds': session_ids,
                    'roles': roles,
                    'since': since,
                    'until': until,
                    'states': states,
                    'agentTypes': agent_types,
                    'includeCompacted': include_compacted,
                    'limit': limit,
                    'cursor': cursor,
                    'timeLimitMs': time_limit_ms,
                    'workDoneToken': work_done_token,
                },
            ),
            progress=progress,
        )

    @overload
    def notifications(self, method: Literal['$/progress']) -> Stream[ProgressParams]: ...

    @overload
    def notifications(self, method: Literal['window/logMessage']) -> Stream[WindowLogMessageParams]: ...

    @overload
    def notifications(self, method: Literal['$/logTrace']) -> Stream[LogTraceParams]: ...

    @overload
    def notifications(self, method: Literal['workspace/didChangeFiles']) -> Stream[WorkspaceDidChangeFilesParams]: ...

    @overload
    def notifications(self, method: Literal['session/didChangeState']) -> Stream[SessionDidChangeStateParams]: ...

    @overload
    def notifications(self, method: Literal['session/deferredReady']) -> Stream[SessionDeferredReadyParams]: ...

    @overload
    def notifications(self, method: Literal['queue/ready']) -> Stream[QueueReadyParams]: ...

    @overload
    def notifications(self, method: Literal['settings/didChange']) -> Stream[SettingsDidChangeParams]: ...

    @overload
    def notifications(self, method: str) -> Stream[Any]: ...

    def notifications(self, method: str) -> Stream[Any]:
        """
        The params of every notification ``method`` the server sends from now on, as an async
        iterator (see Stream). Subscribing is immediate, so nothing sent after this call is missed;
        close the stream (or use it as an async context manager) to unsubscribe.
        """
        return self._subscribe(method)
