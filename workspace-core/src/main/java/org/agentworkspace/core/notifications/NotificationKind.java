package org.agentworkspace.core.notifications;

import java.util.Arrays;
import java.util.Optional;

import org.agentworkspace.core.settings.NotificationPreferences;

/** What a notification is about; each kind is switched on or off in the user's {@link NotificationPreferences}. */
public enum NotificationKind {
    /** A run waits for the user (a tool-permission request). */
    ACTION_REQUIRED("actionRequired"),
    /** A run the user started ended normally. */
    STOP("stop"),
    /** A run the user started failed or timed out. */
    ERROR("error");

    private final String wireName;

    NotificationKind(String wireName) {
        this.wireName = wireName;
    }

    /** The name in payloads and in the preferences document: {@code actionRequired}, {@code stop}, {@code error}. */
    public String wireName() {
        return wireName;
    }

    public static Optional<NotificationKind> find(String wireName) {
        return Arrays.stream(values()).filter(k -> k.wireName.equals(wireName)).findFirst();
    }

    /** Whether the user wants this kind at all. */
    public boolean enabledIn(NotificationPreferences p) {
        return switch (this) {
            case ACTION_REQUIRED -> p.actionRequired();
            case STOP -> p.stop();
            case ERROR -> p.error();
        };
    }
}
