package org.agentworkspace.core.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;

/**
 * A sink that keeps only the newest {@code capacity} messages and counts all of them, so a tail page can be cut
 * from a stream of any length. With {@code trackIds} (for readers that re-deliver ids) a re-delivered id that is
 * still in the window replaces its message in place, and one that already left the window is ignored (it was counted
 * when first delivered); that costs one map entry per message id. Without it nothing but the window is kept.
 */
final class TailPager implements HistorySink {
    private final long capacity;
    private final boolean trackIds;
    private final ArrayDeque<HistoryMessage> window = new ArrayDeque<>();
    private final Map<String, Integer> seenIds = new HashMap<>();
    private int total;
    private int dropped;

    TailPager(long capacity, boolean trackIds) {
        this.capacity = capacity;
        this.trackIds = trackIds;
    }

    @Override
    public void accept(HistoryMessage m) {
        if (trackIds) {
            Integer index = seenIds.get(m.id());
            if (index != null) {
                int pos = index - dropped;
                if (pos >= 0) {
                    replace(pos, m);
                }
                return;
            }
            seenIds.put(m.id(), total);
        }
        total++;
        window.addLast(m);
        while (window.size() > capacity) {
            window.removeFirst();
            dropped++;
        }
    }

    @Override
    public void reset() {
        window.clear();
        seenIds.clear();
        total = 0;
        dropped = 0;
    }

    private void replace(int pos, HistoryMessage m) {
        List<HistoryMessage> list = new ArrayList<>(window);
        list.set(pos, m);
        window.clear();
        window.addAll(list);
    }

    MessagePage page(int limit, int offset) {
        int end = MessagePage.endIndex(total, offset);
        int start = MessagePage.startIndex(total, limit, offset);
        List<HistoryMessage> list = new ArrayList<>(window);
        List<HistoryMessage> slice = start >= end ? List.of() : list.subList(start - dropped, end - dropped);
        return new MessagePage(slice, total, start > 0, offset, limit);
    }
}
