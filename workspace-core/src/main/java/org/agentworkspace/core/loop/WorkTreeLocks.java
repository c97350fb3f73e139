package org.agentworkspace.core.loop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One lock per working tree (by real path) for the loop's actions that rewrite files: a checkpoint restore and a
 * review revert hold it from their checks to their last write, so two of them never interleave in one tree, and the
 * second sees what the first did (a review item already decided, a tree already restored).
 */
final class WorkTreeLocks {
    private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private WorkTreeLocks() {
    }

    static <T> T with(Path dir, Supplier<T> work) {
        ReentrantLock lock = LOCKS.computeIfAbsent(real(dir), k -> new ReentrantLock());
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
