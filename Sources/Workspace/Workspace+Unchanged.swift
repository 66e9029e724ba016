extension Workspace {
    /// The file's status when its etag is still `etag`, nil when it is not (or the entry is not a
    /// regular file): one `lstat`, nothing read. This is what lets a client that holds the
    /// content of a known etag ask "unchanged?" for about the cost of a round trip. The same
    /// paths are refused as for `read` (reserved names, a missing file: `NotFound`).
    public func unchanged(_ path: WorkspacePath, since etag: String) throws(WorkspaceError) -> FileStatus? {
        try checkClientPath(path)
        let status = try status(path)
        return status.type == .file && status.etag == etag ? status : nil
    }
}
