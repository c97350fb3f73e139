package org.agentworkspace.core.history;

import java.util.HashSet;
import java.util.Set;

import org.agentworkspace.api.history.HistoryMessage;

/** State of one read: the session, the facts being collected and the sink (every delivered message feeds the facts). */
final class ReadContext {
    final SessionFile file;
    final FactsBuilder facts = new FactsBuilder();
    private final HistorySink sink;
    /** Ids delivered in this read, for readers that re-deliver ids (so the facts count each message once). */
    private final Set<String> seen;

    ReadContext(SessionFile file, HistorySink sink) {
        this(file, sink, false);
    }

    ReadContext(SessionFile file, HistorySink sink, boolean redelivers) {
        this.file = file;
        this.sink = sink;
        this.seen = redelivers ? new HashSet<>() : null;
    }

    String sessionId() {
        return file.sessionId();
    }

    void emit(HistoryMessage m) {
        if (seen == null || seen.add(m.id())) {
            facts.message(m);
        }
        sink.accept(m);
    }

    void reset() {
        if (seen != null) {
            seen.clear();
        }
        facts.reset();
        sink.reset();
    }
}
