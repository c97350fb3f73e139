package org.agentworkspace.core.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.Test;

/** Next-run computation of the three schedule kinds, and what their parser refuses. */
class ScheduleTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Schedule parse(String json) throws Exception {
        return Schedule.parse(JSON.readTree(json), Duration.ofSeconds(60));
    }

    @Test
    void cronFollowsItsZoneAcrossTheDaylightSavingChange() throws Exception {
        Schedule s = parse("{\"kind\":\"cron\",\"expression\":\"30 9 * * *\",\"timezone\":\"Europe/Berlin\"}");
        // 2026-03-29 is the spring change in Berlin: 09:30 is 07:30Z that day and 08:30Z the day before
        assertEquals(Instant.parse("2026-03-28T08:30:00Z"), s.nextAfter(Instant.parse("2026-03-28T00:00:00Z")).get());
        assertEquals(Instant.parse("2026-03-29T07:30:00Z"), s.nextAfter(Instant.parse("2026-03-28T08:30:00Z")).get());
        assertEquals("Europe/Berlin", s.toJson().path("timezone").asText());
    }

    @Test
    void intervalsStayAlignedToTheirStart() throws Exception {
        Schedule s = parse("{\"kind\":\"interval\",\"everySeconds\":3600,\"startAt\":\"2026-01-01T00:00:00Z\"}");
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), s.nextAfter(Instant.parse("2025-12-31T10:00:00Z")).get());
        assertEquals(Instant.parse("2026-01-01T05:00:00Z"), s.nextAfter(Instant.parse("2026-01-01T04:00:00Z")).get(),
                "exactly on a boundary: the next one");
        assertEquals(Instant.parse("2026-01-01T05:00:00Z"), s.nextAfter(Instant.parse("2026-01-01T04:59:59Z")).get());
        Schedule free = parse("{\"kind\":\"interval\",\"everySeconds\":120}");
        assertEquals(Instant.parse("2026-01-01T00:02:00Z"), free.nextAfter(Instant.parse("2026-01-01T00:00:00Z"))
                .get());
    }

    @Test
    void aOneTimeScheduleHasNoRunAfterItsMoment() throws Exception {
        Schedule s = parse("{\"kind\":\"once\",\"at\":\"2026-05-01T12:00:00+02:00\"}");
        assertEquals(Instant.parse("2026-05-01T10:00:00Z"), s.nextAfter(Instant.parse("2026-05-01T09:00:00Z")).get());
        assertTrue(s.nextAfter(Instant.parse("2026-05-01T10:00:00Z")).isEmpty());
    }

    @Test
    void aSubMillisecondMomentIsRoundedUpSoNothingRunsEarly() throws Exception {
        Schedule s = parse("{\"kind\":\"once\",\"at\":\"2026-05-01T10:00:00.123456789Z\"}");
        assertEquals(Instant.parse("2026-05-01T10:00:00.124Z"), ((Schedule.Once) s).at());
    }

    @Test
    void malformedSchedulesAreRefusedWithOneCode() {
        for (String bad : new String[] {"null", "[]", "{}", "{\"kind\":\"weekly\"}", "{\"kind\":\"once\"}",
                "{\"kind\":\"once\",\"at\":\"2026-05-01 12:00\"}", "{\"kind\":\"interval\",\"everySeconds\":59}",
                "{\"kind\":\"interval\",\"everySeconds\":1.5}", "{\"kind\":\"interval\"}",
                "{\"kind\":\"cron\",\"expression\":\"* * * * * *\"}", "{\"kind\":\"cron\",\"expression\":\"0 25 * * *\"}",
                "{\"kind\":\"cron\",\"expression\":\"0 9 * * *\",\"timezone\":\"Nowhere/Land\"}",
                "{\"kind\":\"cron\",\"expression\":\"0 0 31 2 *\"}"}) {
            WorkspaceException e = assertThrows(WorkspaceException.class, () -> {
                JsonNode n = JSON.readTree(bad);
                Schedule.parse(n, Duration.ofSeconds(60));
            }, bad);
            assertEquals(TaskErrorCodes.INVALID_SCHEDULE, e.code(), bad);
        }
    }
}
