package org.agentworkspace.core.loop;

import java.time.Instant;
import java.util.List;

/**
 * The desktop release policy clients follow.
 *
 * @param channel           {@code stable}, {@code beta} or {@code nightly}
 * @param autoUpdate        clients install updates without asking
 * @param minimumVersion    clients older than this ({@code MAJOR.MINOR.PATCH}) must update first, or {@code null}
 * @param rolloutPercent    0..100: the share of clients offered a new release
 * @param maintenanceWindow when automatic updates may happen, or {@code null} for any time
 * @param updatedAt         when an administrator last replaced it, {@code null} while it is the default
 * @param updatedBy         that administrator's user name, or {@code null}
 */
public record ReleasePolicy(String channel, boolean autoUpdate, String minimumVersion, int rolloutPercent,
                           MaintenanceWindow maintenanceWindow, Instant updatedAt, String updatedBy) {

    /** The policy until an administrator stores one. */
    public static final ReleasePolicy DEFAULT = new ReleasePolicy("stable", false, null, 100, null, null, null);

    /**
     * A weekly window.
     *
     * @param days            the days it opens on ({@code mon} … {@code sun}), at least one
     * @param start           {@code HH:MM}, 24-hour
     * @param durationMinutes 1..1440
     * @param timezone        an IANA zone id such as {@code Europe/Berlin}
     */
    public record MaintenanceWindow(List<String> days, String start, int durationMinutes, String timezone) {
        public MaintenanceWindow {
            days = List.copyOf(days);
        }
    }
}
