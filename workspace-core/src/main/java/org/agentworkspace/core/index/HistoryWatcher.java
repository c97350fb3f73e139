package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Watches every provider's history directories (and their subdirectories down to the session files, registering new
 * ones as they appear) and hands changed paths to the index after a 100 ms debounce.
 */
final class HistoryWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HistoryWatcher.class.getName());
    static final long DEBOUNCE_MS = 100;

    /** A directory under a home and how many levels below it hold directories worth watching. */
    private record Root(Path home, Path dir, int depth) {
    }

    private record Watched(Path home, Path dir, int depth) {
    }

    private final HistoryIndex index;
    private final WatchService service;
    private final List<Root> roots = new ArrayList<>();
    private final Map<WatchKey, Watched> keys = new ConcurrentHashMap<>();
    private final Map<Path, Boolean> watchedDirs = new ConcurrentHashMap<>();
    private final Map<Path, Path> changed = new ConcurrentHashMap<>();
    private final ScheduledExecutorService debounce;
    private final Thread thread;
    private volatile boolean closed;

    private HistoryWatcher(HistoryIndex index, List<Path> homes) throws IOException {
        this.index = index;
        this.service = FileSystems.getDefault().newWatchService();
        for (Path home : homes) {
            roots.add(new Root(home, home.resolve(".claude/projects"), 1));
            roots.add(new Root(home, home.resolve(".codex/sessions"), 3));
            roots.add(new Root(home, home.resolve(".gemini/tmp"), 2));
            roots.add(new Root(home, home.resolve(".qwen/projects"), 2));
            roots.add(new Root(home, home.resolve(".qwen/tmp"), 2));
            roots.add(new Root(home, home.resolve(".local/share/opencode"), 0));
            roots.add(new Root(home, home.resolve(".cursor/chats"), 2));
        }
        this.debounce = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("history-index-debounce").unstarted(r));
        this.thread = Thread.ofPlatform().daemon().name("history-index-watch").unstarted(this::loop);
    }

    static HistoryWatcher start(HistoryIndex index, List<Path> homes) throws IOException {
        HistoryWatcher w = new HistoryWatcher(index, homes);
        w.registerMissingRoots();
        w.thread.start();
        w.debounce.scheduleWithFixedDelay(w::drain, DEBOUNCE_MS, DEBOUNCE_MS, TimeUnit.MILLISECONDS);
        return w;
    }

    /** Registers roots that did not exist before (a CLI used for the first time). */
    void registerMissingRoots() {
        for (Root r : roots) {
            if (!watchedDirs.containsKey(r.dir()) && Files.isDirectory(r.dir(), LinkOption.NOFOLLOW_LINKS)) {
                register(r.home(), r.dir(), r.depth(), false);
            }
        }
    }

    private void register(Path home, Path dir, int depth, boolean reportFiles) {
        if (closed || watchedDirs.containsKey(dir)) {
            return;
        }
        try {
            WatchKey key = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
            keys.put(key, new Watched(home, dir, depth));
            watchedDirs.put(dir, Boolean.TRUE);
        } catch (IOException | ClosedWatchServiceException e) {
            LOG.log(Level.DEBUG, "cannot watch {0}: {1}", dir, e.toString());
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            for (Path c : children.toList()) {
                if (Files.isDirectory(c, LinkOption.NOFOLLOW_LINKS)) {
                    if (depth > 0) {
                        register(home, c, depth - 1, reportFiles);
                    }
                } else if (reportFiles) {
                    changed.put(c, home);
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "cannot list {0}: {1}", dir, e.toString());
        }
    }

    private void loop() {
        while (!closed) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            Watched w = keys.get(key);
            for (WatchEvent<?> event : key.pollEvents()) {
                if (w == null) {
                    continue;
                }
                if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                    Thread.ofPlatform().daemon().start(index::sweep);
                    continue;
                }
                Path child = w.dir().resolve((Path) event.context());
                if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE
                        && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                    if (w.depth() > 0) {
                        register(w.home(), child, w.depth() - 1, true);
                    }
                    continue;
                }
                if (event.kind() == StandardWatchEventKinds.ENTRY_DELETE) {
                    watchedDirs.remove(child);
                }
                changed.put(child, w.home());
            }
            if (!key.reset()) {
                Watched gone = keys.remove(key);
                if (gone != null) {
                    watchedDirs.remove(gone.dir());
                }
            }
        }
    }

    private void drain() {
        if (changed.isEmpty()) {
            return;
        }
        List<Map.Entry<Path, Path>> batch = new ArrayList<>();
        for (Path p : List.copyOf(changed.keySet())) {
            Path home = changed.remove(p);
            if (home != null) {
                batch.add(Map.entry(p, home));
            }
        }
        boolean opencodeDone = false;
        for (Map.Entry<Path, Path> e : batch) {
            boolean opencode = e.getKey().toString().contains("/.local/share/opencode/");
            if (opencode && opencodeDone) {
                continue;
            }
            opencodeDone |= opencode;
            try {
                index.pathChanged(e.getValue(), e.getKey());
            } catch (RuntimeException ex) {
                LOG.log(Level.DEBUG, "history change of {0} not applied: {1}", e.getKey(), ex.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        debounce.shutdownNow();
        try {
            service.close();
        } catch (IOException e) {
            // closing anyway
        }
        thread.interrupt();
    }
}
