package org.agentworkspace.core.history;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** The history readers of every provider, one instance each (readers are thread-safe and keep only counters). */
public final class HistoryReaders {
    private final Map<String, HistoryReader> readers;

    private HistoryReaders(List<HistoryReader> list) {
        this.readers = list.stream().collect(Collectors.toUnmodifiableMap(HistoryReader::provider,
                Function.identity()));
    }

    /** All six readers; cursor resolves projects only from what its chats record. */
    public static HistoryReaders create() {
        return create(Set::of);
    }

    /**
     * All six readers. {@code knownProjects} supplies absolute project paths the service knows of, so cursor (whose
     * store names the project only by the md5 of its path) can map a chat folder back to a path.
     */
    public static HistoryReaders create(Supplier<? extends Collection<String>> knownProjects) {
        return new HistoryReaders(List.of(new ClaudeHistoryReader(), new CodexHistoryReader(),
                new GeminiHistoryReader(), new QwenHistoryReader(), new CursorHistoryReader(knownProjects),
                new OpenCodeHistoryReader()));
    }

    /** The reader of {@code provider}, if it has one. */
    public Optional<HistoryReader> find(String provider) {
        return Optional.ofNullable(readers.get(provider));
    }

    /** The reader of {@code provider}; throws for an unknown provider. */
    public HistoryReader get(String provider) {
        return find(provider).orElseThrow(() -> new IllegalArgumentException("no history reader for " + provider));
    }

    /** Every reader, in {@link org.agentworkspace.api.history.HistoryProviders#ALL} order. */
    public List<HistoryReader> all() {
        return org.agentworkspace.api.history.HistoryProviders.ALL.stream().map(readers::get).toList();
    }
}
