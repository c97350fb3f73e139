package org.agentworkspace.core.shell;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One interactive terminal: a process on a PTY, the ring of its recent output, and at most one attached
 * {@link ShellListener}. Output is appended to the ring and handed to the listener under one lock, so an
 * {@link #attach} sees every byte exactly once: either in its replay or live.
 */
public final class ShellSession {
    private static final System.Logger LOG = System.getLogger(ShellSession.class.getName());

    private final String id;
    private final String userId;
    private final Path cwd;
    private final Pty pty;
    private final LongSupplier nanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final OutputRing ring;
    private ShellListener listener;
    private long lastActivity;
    private long detachedAt;
    private Integer exitCode;
    private boolean closed;

    ShellSession(String id, String userId, Path cwd, Pty pty, int replayBytes, LongSupplier nanos) {
        this.id = id;
        this.userId = userId;
        this.cwd = cwd;
        this.pty = pty;
        this.nanos = nanos;
        this.ring = new OutputRing(replayBytes);
        this.lastActivity = nanos.getAsLong();
        this.detachedAt = lastActivity;
    }

    public String id() {
        return id;
    }

    public String userId() {
        return userId;
    }

    public Path cwd() {
        return cwd;
    }

    /** The PID of the terminal's first process (the shell or the CLI). */
    public long pid() {
        return pty.pid();
    }

    /** The exit code once the process has ended. */
    public Optional<Integer> exitCode() {
        lock.lock();
        try {
            return Optional.ofNullable(exitCode);
        } finally {
            lock.unlock();
        }
    }

    /** The offset just after the last byte of output so far. */
    public long offset() {
        lock.lock();
        try {
            return ring.end();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What an attach saw: the output missed since the requested offset, where that replay starts (later than asked
     * when the ring no longer holds it: {@code truncated}), the offset it ends at, and the exit code if the process has
     * already ended.
     */
    public record Attachment(String replay, long replayFrom, long offset, boolean truncated, Optional<Integer> exitCode) {
    }

    /**
     * Makes {@code l} the terminal's consumer (a previous one is dropped) and returns the output since
     * {@code fromOffset}; everything after it goes to {@code l}.
     */
    public Attachment attach(long fromOffset, ShellListener l) {
        lock.lock();
        try {
            long from = Math.max(Math.max(0, fromOffset), ring.start());
            byte[] missed = ring.since(from);
            int skip = OutputRing.continuationPrefix(missed);
            listener = l;
            lastActivity = nanos.getAsLong();
            return new Attachment(new String(missed, skip, missed.length - skip, StandardCharsets.UTF_8), from + skip,
                    ring.end(), from > Math.max(0, fromOffset), Optional.ofNullable(exitCode));
        } finally {
            lock.unlock();
        }
    }

    /** Drops {@code l} if it is still the consumer; the terminal keeps running and buffering for a reconnect. */
    public void detach(ShellListener l) {
        lock.lock();
        try {
            if (listener == l) {
                listener = null;
                detachedAt = nanos.getAsLong();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Types {@code data} into the terminal. */
    public void write(String data) {
        try {
            OutputStream in = pty.input();
            in.write(data.getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        touch();
    }

    public void resize(int cols, int rows) {
        pty.resize(cols, rows);
        touch();
    }

    private void touch() {
        lock.lock();
        try {
            lastActivity = nanos.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    boolean isRunning() {
        lock.lock();
        try {
            return exitCode == null && !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Why the reaper should end this session now, or null. */
    String reapReason(long detachedTtlNanos, long idleTtlNanos) {
        lock.lock();
        try {
            long now = nanos.getAsLong();
            if (listener == null && now - detachedAt >= detachedTtlNanos) {
                return exitCode == null ? "detached too long" : "ended and detached";
            }
            if (exitCode == null && now - lastActivity >= idleTtlNanos) {
                return "idle too long";
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** The reader loop; runs on its own platform thread until the PTY's output ends. */
    void pump() {
        byte[] buf = new byte[16384];
        int carry = 0;
        InputStream out = pty.output();
        try {
            while (true) {
                int n = out.read(buf, carry, buf.length - carry);
                if (n < 0) {
                    break;
                }
                int len = carry + n;
                int whole = OutputRing.completeUtf8(buf, len);
                if (whole == 0 && len < 4) {
                    carry = len;
                    continue;
                }
                if (whole == 0) {
                    whole = len;
                }
                deliver(buf, whole);
                carry = len - whole;
                System.arraycopy(buf, whole, buf, 0, carry);
            }
        } catch (IOException e) {
            // EIO when the PTY's last writer is gone: the normal end on Linux
        }
        if (carry > 0) {
            deliver(buf, carry);
        }
        int code;
        try {
            code = pty.waitFor(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = -1;
        }
        lock.lock();
        try {
            exitCode = code;
            if (listener == null) {
                detachedAt = Math.min(detachedAt, nanos.getAsLong());
            } else {
                listener.onExit(code);
            }
        } finally {
            lock.unlock();
        }
    }

    private void deliver(byte[] buf, int len) {
        lock.lock();
        try {
            ring.append(buf, 0, len);
            lastActivity = nanos.getAsLong();
            if (listener != null) {
                listener.onOutput(new String(buf, 0, len, StandardCharsets.UTF_8), ring.end());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Kills the process and every descendant it has (SIGKILL: an interactive shell ignores SIGTERM), and waits for
     * them. Descendants that left the tree (double fork, reparented to init) are out of reach; see docs/shell.md.
     * Returns whether everything seen has ended.
     */
    boolean kill() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        List<ProcessHandle> tree = new ArrayList<>();
        java.util.Optional<ProcessHandle> root = pty.handle();
        root.ifPresent(h -> h.descendants().forEach(tree::add));
        // stop the shell first so it cannot start new children, then its descendants, deepest last seen first
        pty.kill();
        for (int i = tree.size() - 1; i >= 0; i--) {
            tree.get(i).destroyForcibly();
        }
        // a child started between the snapshot and the kill
        root.ifPresent(h -> h.descendants().forEach(ProcessHandle::destroyForcibly));
        boolean ended = true;
        try {
            ended = pty.waitFor(5000) != -1 || !pty.isAlive();
            for (ProcessHandle h : tree) {
                try {
                    h.onExit().get(5, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    ended = false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = false;
        }
        if (!ended) {
            LOG.log(System.Logger.Level.WARNING, "terminal " + id + ": a process did not end after SIGKILL");
        }
        return ended;
    }
}
