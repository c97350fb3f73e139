package org.agentworkspace.core.tasks;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.json.JsonMappers;

/**
 * When a task runs: {@link Once} at an instant, {@link Interval} every N seconds (at least {@code minInterval}) from
 * an optional start, or {@link Cron} by a five-field Unix cron expression in an IANA time zone.
 */
public sealed interface Schedule {
    ObjectMapper JSON = JsonMappers.shared();
    CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    /** The first run strictly after {@code after}, or empty when there is none (a one-time schedule that passed). */
    Optional<Instant> nextAfter(Instant after);

    /** The wire form ({@code {kind, ...}}). */
    ObjectNode toJson();

    /** A one-time run at {@code at}. */
    record Once(Instant at) implements Schedule {
        @Override
        public Optional<Instant> nextAfter(Instant after) {
            return at.isAfter(after) ? Optional.of(at) : Optional.empty();
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode n = JSON.createObjectNode();
            n.put("kind", "once");
            n.put("at", at.toString());
            return n;
        }
    }

    /** Every {@code every}, counted from {@code startAt} (or from when the task was scheduled). */
    record Interval(Duration every, Instant startAt) implements Schedule {
        @Override
        public Optional<Instant> nextAfter(Instant after) {
            if (startAt == null) {
                return Optional.of(after.plus(every));
            }
            if (startAt.isAfter(after)) {
                return Optional.of(startAt);
            }
            long periods = Duration.between(startAt, after).toMillis() / every.toMillis() + 1;
            return Optional.of(startAt.plusMillis(periods * every.toMillis()));
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode n = JSON.createObjectNode();
            n.put("kind", "interval");
            n.put("everySeconds", every.toSeconds());
            if (startAt != null) {
                n.put("startAt", startAt.toString());
            }
            return n;
        }
    }

    /** A five-field Unix cron expression in {@code zone}. */
    record Cron(String expression, ZoneId zone, ExecutionTime execution) implements Schedule {
        @Override
        public Optional<Instant> nextAfter(Instant after) {
            return execution.nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode n = JSON.createObjectNode();
            n.put("kind", "cron");
            n.put("expression", expression);
            n.put("timezone", zone.getId());
            return n;
        }
    }

    /**
     * Reads the wire form. Refused with 400 {@code INVALID_SCHEDULE}: an unknown kind, a missing or malformed value,
     * an interval shorter than {@code minInterval}, an expression that is not five Unix cron fields, an unknown zone.
     */
    static Schedule parse(JsonNode n, Duration minInterval) {
        if (n == null || !n.isObject()) {
            throw invalid("schedule must be an object with a kind of once, interval or cron");
        }
        String kind = n.path("kind").asText("");
        return switch (kind) {
            // times are kept in milliseconds: a sub-millisecond moment is rounded up, so a task never runs early
            case "once" -> new Once(ceilMillis(instant(n, "at").orElseThrow(() ->
                    invalid("schedule.at is required (ISO-8601)"))));
            case "interval" -> {
                JsonNode every = n.get("everySeconds");
                if (every == null || !every.canConvertToLong() || !every.isIntegralNumber()) {
                    throw invalid("schedule.everySeconds must be a whole number of seconds");
                }
                long s = every.asLong();
                if (s < minInterval.toSeconds() || s > Duration.ofDays(366).toSeconds()) {
                    throw invalid("schedule.everySeconds must be between " + minInterval.toSeconds() + " and "
                            + Duration.ofDays(366).toSeconds());
                }
                yield new Interval(Duration.ofSeconds(s), instant(n, "startAt").map(Schedule::ceilMillis).orElse(null));
            }
            case "cron" -> {
                String expr = n.path("expression").asText("").strip();
                if (expr.isEmpty() || expr.length() > 200 || expr.split("\\s+").length != 5) {
                    throw invalid("schedule.expression must be a five-field Unix cron expression");
                }
                ZoneId zone;
                try {
                    zone = ZoneId.of(n.path("timezone").asText("UTC"));
                } catch (DateTimeException e) {
                    throw invalid("schedule.timezone is not a known IANA zone");
                }
                com.cronutils.model.Cron cron;
                try {
                    cron = UNIX.parse(expr);
                    cron.validate();
                } catch (IllegalArgumentException e) {
                    throw invalid("schedule.expression is not a valid cron expression: " + cut(e.getMessage()));
                }
                ExecutionTime et = ExecutionTime.forCron(cron);
                if (et.nextExecution(ZonedDateTime.now(zone)).isEmpty()) {
                    throw invalid("schedule.expression never fires");
                }
                yield new Cron(expr, zone, et);
            }
            default -> throw invalid("schedule.kind must be once, interval or cron");
        };
    }

    private static Optional<Instant> instant(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        Instant at;
        try {
            at = java.time.OffsetDateTime.parse(v.asText()).toInstant();
        } catch (DateTimeParseException e) {
            throw invalid("schedule." + field + " must be an ISO-8601 date-time with an offset");
        }
        // times are stored as epoch milliseconds: a year like +999999999 does not fit (it was a 500)
        if (at.isBefore(Instant.EPOCH) || at.isAfter(Instant.parse("9999-12-31T23:59:59.999Z"))) {
            throw invalid("schedule." + field + " must be between the years 1970 and 9999");
        }
        return Optional.of(at);
    }

    private static Instant ceilMillis(Instant i) {
        Instant t = i.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        return t.equals(i) ? t : t.plusMillis(1);
    }

    private static String cut(String s) {
        return s == null ? "" : s.length() > 160 ? s.substring(0, 160) : s;
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(TaskErrorCodes.INVALID_SCHEDULE, message);
    }
}
