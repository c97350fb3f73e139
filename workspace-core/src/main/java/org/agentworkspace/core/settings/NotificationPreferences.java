package org.agentworkspace.core.settings;

/**
 * Which notifications a user wants, and where: the channels {@code inApp} (shown by an open client) and
 * {@code webPush}, and the event kinds {@code actionRequired} (an agent waits for an answer, such as a tool
 * permission), {@code stop} (a run ended) and {@code error} (a run failed).
 */
public record NotificationPreferences(boolean inApp, boolean webPush, boolean actionRequired, boolean stop,
                                      boolean error) {

    /** What a user has before saving anything: in-app notices for every event kind, no web push. */
    public static final NotificationPreferences DEFAULTS = new NotificationPreferences(true, false, true, true, true);
}
