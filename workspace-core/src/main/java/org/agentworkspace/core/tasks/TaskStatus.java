package org.agentworkspace.core.tasks;

import java.util.Locale;

/**
 * A task's state. {@code scheduled} waits for its next run; {@code running} has a run in progress; {@code paused}
 * starts nothing; {@code completed} / {@code failed} end a one-time task; {@code cancelled} ends any task.
 */
public enum TaskStatus {
    SCHEDULED, RUNNING, PAUSED, COMPLETED, FAILED, CANCELLED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean ended() {
        return this == COMPLETED || this == FAILED || this == CANCELLED;
    }

    public static TaskStatus ofWireName(String s) {
        for (TaskStatus t : values()) {
            if (t.wireName().equals(s)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown task status " + s);
    }
}
