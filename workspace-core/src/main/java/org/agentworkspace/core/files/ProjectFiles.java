package org.agentworkspace.core.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.ContentEncoding;
import org.agentworkspace.api.files.DeleteResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileContent;
import org.agentworkspace.api.files.FileEntry;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;

/**
 * File operations on one project: list, read, write, create, rename, delete. Every path goes through
 * {@link PathGuard}; the rules below are the API's contract.
 *
 * <ul>
 *   <li><b>list</b> one directory level: directories first, then files, each sorted by name. A symbolic link is
 *       listed by its own name; its type and size are its target's when the target is inside the project,
 *       otherwise {@code file} with no size (nothing about the outside target is revealed). More than
 *       {@link FileLimits#maxEntries()} entries: {@code TOO_MANY_ENTRIES}.</li>
 *   <li><b>read</b> a regular file (following links inside the project) up to {@link FileLimits#maxReadBytes()}
 *       ({@code FILE_TOO_LARGE} above). Encoding rule: no NUL byte in the first 8 KiB and the whole file valid
 *       UTF-8 → {@code utf-8} text; otherwise {@code base64}.</li>
 *   <li><b>write</b> (create or replace) a regular file with UTF-8 text, atomically: a temporary file in the same
 *       directory is written and synced, then renamed over the target with {@code ATOMIC_MOVE}; a crash leaves the
 *       old file or the new one, never half of one. An existing file keeps its permissions. The folder must exist
 *       ({@code FILE_NOT_FOUND}).</li>
 *   <li><b>create</b> a file (atomically, as above) or a directory, making missing parent folders;
 *       {@code FILE_EXISTS} when the path exists, even as a broken link.</li>
 *   <li><b>rename</b> moves the entry itself (a link stays a link) with {@code ATOMIC_MOVE}; both paths are
 *       confined, the target's folder must exist and the target must not ({@code FILE_EXISTS}); a directory
 *       cannot move into itself.</li>
 *   <li><b>delete</b> removes a file, a link (never its target) or a directory with everything below it
 *       (the result says {@code recursive}); links met on the way are removed, never followed. A {@code file} type
 *       hint on a directory is refused ({@code NOT_A_FILE}) so a mistaken client cannot remove a tree; the project
 *       root can never be deleted.</li>
 * </ul>
 */
public final class ProjectFiles {
    private static final int SNIFF_BYTES = 8192;

    private final PathGuard guard;
    private final FileLimits limits;
    private final SecureRandom random = new SecureRandom();

    private ProjectFiles(PathGuard guard, FileLimits limits) {
        this.guard = guard;
        this.limits = limits;
    }

    /** Files of the project at {@code projectRoot}, with default limits. */
    public static ProjectFiles create(Path projectRoot) {
        return create(PathGuard.create(projectRoot), FileLimits.defaults());
    }

    public static ProjectFiles create(PathGuard guard, FileLimits limits) {
        return new ProjectFiles(Objects.requireNonNull(guard, "guard"), Objects.requireNonNull(limits, "limits"));
    }

    public PathGuard guard() {
        return guard;
    }

    // ------------------------------------------------------------ list

    /** One directory level; {@code null} or {@code ""} lists the project root. */
    public List<FileEntry> list(String path) {
        RelativePath rel = RelativePath.parse(path == null ? "" : path);
        Path dir = guard.resolve(rel);
        BasicFileAttributes attributes = attributesOrNull(dir);
        if (attributes == null) {
            throw notFound(rel);
        }
        if (!attributes.isDirectory()) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "'" + rel + "' is not a folder");
        }
        List<FileEntry> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path child : stream) {
                if (entries.size() >= limits.maxEntries()) {
                    throw new WorkspaceException.PayloadTooLarge(FileErrorCodes.TOO_MANY_ENTRIES, "the folder holds more "
                            + "than " + limits.maxEntries() + " entries");
                }
                String name = child.getFileName().toString();
                String childPath = rel.isRoot() ? name : rel.value() + "/" + name;
                entries.add(describe(child, name, childPath));
            }
        } catch (NoSuchFileException e) {
            throw notFound(rel);
        } catch (IOException e) {
            throw new UncheckedIOException("listing failed", e);
        }
        entries.sort(Comparator.comparing((FileEntry e) -> e.type() == EntryType.DIRECTORY ? 0 : 1)
                .thenComparing(FileEntry::name));
        return List.copyOf(entries);
    }

    private FileEntry describe(Path child, String name, String childPath) {
        BasicFileAttributes own = attributesOrNull(child);
        if (own == null) {
            return new FileEntry(name, childPath, EntryType.FILE, null);
        }
        BasicFileAttributes shown = own;
        if (own.isSymbolicLink()) {
            shown = null;
            try {
                Path real = child.toRealPath();
                if (guard.contains(real)) {
                    shown = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                }
            } catch (IOException e) {
                shown = null;
            }
            if (shown == null) {
                return new FileEntry(name, childPath, EntryType.FILE, null);
            }
        }
        if (shown.isDirectory()) {
            return new FileEntry(name, childPath, EntryType.DIRECTORY, null);
        }
        return new FileEntry(name, childPath, EntryType.FILE, shown.isRegularFile() ? shown.size() : null);
    }

    // ------------------------------------------------------------ read

    public FileContent read(String path) {
        RelativePath rel = RelativePath.parse(path);
        Path file = guard.resolve(rel);
        BasicFileAttributes attributes = attributesOrNull(file);
        if (attributes == null) {
            throw notFound(rel);
        }
        if (!attributes.isRegularFile()) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_FILE, "'" + rel + "' is not a regular file");
        }
        if (attributes.size() > limits.maxReadBytes()) {
            throw tooLarge(limits.maxReadBytes());
        }
        byte[] bytes;
        try (SeekableByteChannel channel = Files.newByteChannel(file, StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)) {
            bytes = readAtMost(channel, limits.maxReadBytes());
        } catch (NoSuchFileException e) {
            throw notFound(rel);
        } catch (IOException e) {
            throw new UncheckedIOException("read failed", e);
        }
        return decode(bytes);
    }

    private byte[] readAtMost(SeekableByteChannel channel, long max) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(max + 1, Math.max(channel.size() + 1, 1)));
        while (true) {
            if (!buffer.hasRemaining()) {
                if (buffer.capacity() > max) {
                    throw tooLarge(max);
                }
                ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(max + 1, (long) buffer.capacity() * 2));
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
            if (channel.read(buffer) < 0) {
                break;
            }
        }
        if (buffer.position() > max) {
            throw tooLarge(max);
        }
        byte[] bytes = new byte[buffer.position()];
        buffer.flip();
        buffer.get(bytes);
        return bytes;
    }

    /** The documented encoding rule. */
    static FileContent decode(byte[] bytes) {
        int sniff = Math.min(bytes.length, SNIFF_BYTES);
        for (int i = 0; i < sniff; i++) {
            if (bytes[i] == 0) {
                return new FileContent(Base64.getEncoder().encodeToString(bytes), ContentEncoding.BASE64);
            }
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            return new FileContent(text, ContentEncoding.UTF_8);
        } catch (CharacterCodingException e) {
            return new FileContent(Base64.getEncoder().encodeToString(bytes), ContentEncoding.BASE64);
        }
    }

    // ------------------------------------------------------------ write

    /** Writes UTF-8 text; see the class description. */
    public FileEntry write(String path, String content) {
        Objects.requireNonNull(content, "content");
        return write(path, content.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes bytes; see the class description. */
    public FileEntry write(String path, byte[] content) {
        Objects.requireNonNull(content, "content");
        RelativePath rel = RelativePath.parse(path);
        if (rel.isRoot()) {
            throw rootRefused();
        }
        checkWriteSize(content.length);
        Path target = guard.resolve(rel);
        Path parent = target.getParent();
        BasicFileAttributes parentAttributes = attributesOrNull(parent);
        if (parentAttributes == null) {
            throw new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND, "the folder of '" + rel
                    + "' does not exist");
        }
        if (!parentAttributes.isDirectory()) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "the folder of '" + rel
                    + "' is a file");
        }
        BasicFileAttributes existing = attributesOrNull(target);
        if (existing != null && !existing.isRegularFile()) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_FILE, "'" + rel + "' is not a regular file");
        }
        atomicWrite(target, content, false, rel);
        return new FileEntry(rel.name(), rel.value(), EntryType.FILE, (long) content.length);
    }

    private void checkWriteSize(long length) {
        if (length > limits.maxWriteBytes()) {
            throw tooLarge(limits.maxWriteBytes());
        }
    }

    private void atomicWrite(Path target, byte[] content, boolean mustNotExist, RelativePath rel) {
        Path dir = target.getParent();
        byte[] suffix = new byte[8];
        random.nextBytes(suffix);
        Path temp = dir.resolve(".aw-" + HexFormat.of().formatHex(suffix) + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            if (!mustNotExist) {
                copyPermissions(target, temp);
            } else if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                throw alreadyExists(rel);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(dir);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("temporary file name collision", e);
        } catch (IOException e) {
            throw new UncheckedIOException("write failed", e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                // best effort: a stray temporary file is harmless
            }
        }
    }

    private static void copyPermissions(Path from, Path to) {
        try {
            if (Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from, LinkOption.NOFOLLOW_LINKS));
            }
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system, or the file vanished: the default permissions stay
        }
    }

    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // some platforms cannot open a directory for sync; the rename itself is still atomic
        }
    }

    // ------------------------------------------------------------ create

    /** Creates a file (with optional UTF-8 content) or a directory, making missing parent folders. */
    public FileEntry create(String path, EntryType type, String content) {
        Objects.requireNonNull(type, "type");
        RelativePath rel = RelativePath.parse(path);
        if (rel.isRoot()) {
            throw rootRefused();
        }
        byte[] bytes = type == EntryType.FILE && content != null ? content.getBytes(StandardCharsets.UTF_8)
                : new byte[0];
        checkWriteSize(bytes.length);
        Path entry = guard.resolveEntry(rel);
        if (Files.exists(entry, LinkOption.NOFOLLOW_LINKS)) {
            throw alreadyExists(rel);
        }
        Path parent = entry.getParent();
        try {
            Files.createDirectories(parent);
        } catch (FileAlreadyExistsException e) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "a part of the path is a file");
        } catch (IOException e) {
            throw new UncheckedIOException("creating folders failed", e);
        }
        // Re-check after creating folders: the parent must still resolve to the same real place.
        if (!guard.resolve(rel.parent()).equals(parent)) {
            throw new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT,
                    "the path changed while it was being created");
        }
        if (type == EntryType.DIRECTORY) {
            try {
                Files.createDirectory(entry);
            } catch (FileAlreadyExistsException e) {
                throw alreadyExists(rel);
            } catch (IOException e) {
                throw new UncheckedIOException("creating the folder failed", e);
            }
            return new FileEntry(rel.name(), rel.value(), EntryType.DIRECTORY, null);
        }
        atomicWrite(entry, bytes, true, rel);
        return new FileEntry(rel.name(), rel.value(), EntryType.FILE, (long) bytes.length);
    }

    // ------------------------------------------------------------ rename

    /** Moves the entry itself; see the class description. */
    public FileEntry rename(String oldPath, String newPath) {
        RelativePath fromRel = RelativePath.parse(oldPath);
        RelativePath toRel = RelativePath.parse(newPath);
        Path from = guard.resolveEntry(fromRel);
        Path to = guard.resolveEntry(toRel);
        BasicFileAttributes fromAttributes = attributesOrNull(from);
        if (fromAttributes == null) {
            throw notFound(fromRel);
        }
        BasicFileAttributes toParent = attributesOrNull(to.getParent());
        if (toParent == null || !toParent.isDirectory()) {
            throw new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND, "the folder of '" + toRel
                    + "' does not exist");
        }
        if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
            throw alreadyExists(toRel);
        }
        if (fromAttributes.isDirectory() && to.startsWith(from)) {
            throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, "a folder cannot move into itself");
        }
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                    "the two paths are on different file systems");
        } catch (NoSuchFileException e) {
            throw notFound(fromRel);
        } catch (IOException e) {
            throw new UncheckedIOException("rename failed", e);
        }
        EntryType type = fromAttributes.isDirectory() ? EntryType.DIRECTORY : EntryType.FILE;
        return new FileEntry(toRel.name(), toRel.value(), type,
                fromAttributes.isRegularFile() ? fromAttributes.size() : null);
    }

    // ------------------------------------------------------------ delete

    /**
     * Deletes a file, a link or a directory tree.
     *
     * @param typeHint the client's idea of the type, or {@code null}; {@code file} on a real directory is refused
     */
    public DeleteResult delete(String path, EntryType typeHint) {
        RelativePath rel = RelativePath.parse(path);
        Path entry = guard.resolveEntry(rel);
        BasicFileAttributes attributes = attributesOrNull(entry);
        if (attributes == null) {
            throw notFound(rel);
        }
        try {
            if (attributes.isDirectory()) {
                if (typeHint == EntryType.FILE) {
                    throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_FILE, "'" + rel
                            + "' is a folder; delete it as a folder");
                }
                long removed = deleteTree(entry);
                return new DeleteResult(rel.value(), EntryType.DIRECTORY, true, removed);
            }
            if (typeHint == EntryType.DIRECTORY && !attributes.isSymbolicLink()) {
                throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "'" + rel + "' is a file");
            }
            Files.delete(entry);
            return new DeleteResult(rel.value(), EntryType.FILE, false, 1);
        } catch (NoSuchFileException e) {
            throw notFound(rel);
        } catch (IOException e) {
            throw new UncheckedIOException("delete failed", e);
        }
    }

    /**
     * The deepest folder tree a delete walks (levels below the folder deleted). The walk holds one open directory
     * per level and recurses per level, so an unbounded depth ran the thread out of stack (a 500); a deeper tree is
     * refused before anything is deleted.
     */
    static final int MAX_DELETE_DEPTH = 512;

    /** Removes a directory tree without ever following a link; returns how many entries went. */
    private static long deleteTree(Path dir) throws IOException {
        Path parent = dir.getParent();
        try (DirectoryStream<Path> parentStream = Files.newDirectoryStream(parent)) {
            if (parentStream instanceof SecureDirectoryStream<Path> secureParent) {
                Path name = dir.getFileName();
                long removed;
                try (SecureDirectoryStream<Path> stream = secureParent.newDirectoryStream(name,
                        LinkOption.NOFOLLOW_LINKS)) {
                    if (deeperThan(stream, MAX_DELETE_DEPTH)) {
                        throw tooDeep();
                    }
                }
                try (SecureDirectoryStream<Path> stream = secureParent.newDirectoryStream(name,
                        LinkOption.NOFOLLOW_LINKS)) {
                    removed = deleteContents(stream, MAX_DELETE_DEPTH);
                }
                secureParent.deleteDirectory(name);
                return removed + 1;
            }
        }
        return deleteTreeWalking(dir);
    }

    private static WorkspaceException tooDeep() {
        return new WorkspaceException.Validation(FileErrorCodes.TREE_TOO_DEEP, "the folder holds a tree more than "
                + MAX_DELETE_DEPTH + " levels deep; nothing was deleted: delete its deepest parts first");
    }

    /** Whether the tree under {@code stream} has folders more than {@code levels} levels down (links not followed). */
    private static boolean deeperThan(SecureDirectoryStream<Path> stream, int levels) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (Path child : stream) {
            Path name = child.getFileName();
            if (stream.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes().isDirectory()) {
                dirs.add(name);
            }
        }
        if (dirs.isEmpty()) {
            return false;
        }
        if (levels == 0) {
            return true;
        }
        for (Path name : dirs) {
            try (SecureDirectoryStream<Path> sub = stream.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                if (deeperThan(sub, levels - 1)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static long deleteContents(SecureDirectoryStream<Path> stream, int levels) throws IOException {
        List<Path> names = new ArrayList<>();
        for (Path child : stream) {
            names.add(child.getFileName());
        }
        long removed = 0;
        for (Path name : names) {
            BasicFileAttributes attributes = stream.getFileAttributeView(name, BasicFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes();
            if (attributes.isDirectory()) {
                if (levels == 0) {
                    // the tree grew deeper after the check
                    throw tooDeep();
                }
                try (SecureDirectoryStream<Path> sub = stream.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    removed += deleteContents(sub, levels - 1);
                }
                stream.deleteDirectory(name);
            } else {
                stream.deleteFile(name);
            }
            removed++;
        }
        return removed;
    }

    /** Fallback where the platform has no secure directory stream. */
    private static long deleteTreeWalking(Path dir) throws IOException {
        long[] removed = {0};
        Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                removed[0]++;
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(d);
                removed[0]++;
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        return removed[0];
    }

    // ------------------------------------------------------------ shared

    private static BasicFileAttributes attributesOrNull(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }

    private static WorkspaceException notFound(RelativePath rel) {
        return new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND, "'" + rel + "' does not exist");
    }

    private static WorkspaceException alreadyExists(RelativePath rel) {
        return new WorkspaceException.Conflict(FileErrorCodes.FILE_EXISTS, "'" + rel + "' already exists");
    }

    private static WorkspaceException rootRefused() {
        return new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                "the project root itself cannot be used here");
    }

    private static WorkspaceException tooLarge(long limit) {
        return new WorkspaceException.PayloadTooLarge(FileErrorCodes.FILE_TOO_LARGE, "the file is larger than " + limit
                + " bytes");
    }
}
