package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.TextNode;

/** The fast UTC timestamp path agrees with {@link Instant#parse} and leaves every other form to it. */
class JsonInstantTest {
    @Test
    void agreesWithInstantParseForEveryFractionLength() {
        Random r = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            Instant t = Instant.ofEpochSecond(r.nextLong(0, 4_102_444_800L), r.nextInt(1_000_000_000));
            for (int digits = 0; digits <= 9; digits++) {
                String pattern = "yyyy-MM-dd'T'HH:mm:ss" + (digits == 0 ? "" : "." + "S".repeat(digits)) + "'Z'";
                String s = DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC).format(t);
                assertEquals(Instant.parse(s), Json.utc(s), s);
                assertEquals(Instant.parse(s), Json.instant(TextNode.valueOf(s)), s);
            }
        }
    }

    @Test
    void dayArithmeticAgreesWithLocalDateForEveryFourDigitYear() {
        for (int year = 0; year <= 9999; year++) {
            for (int month = 1; month <= 12; month++) {
                int length = java.time.YearMonth.of(year, month).lengthOfMonth();
                assertEquals(length, Json.monthLength(year, month), year + "-" + month);
                for (int day = 1; day <= length; day++) {
                    assertEquals(java.time.LocalDate.of(year, month, day).toEpochDay(), Json.epochDay(year, month, day));
                }
            }
        }
    }

    @Test
    void otherFormsFallBackOrAreRejected() {
        assertEquals(Instant.parse("2026-11-22T01:00:00Z"), Json.instant(TextNode.valueOf("2026-11-22T02:00:00+01:00")));
        for (String s : List.of("2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z",
                "2026-11-22T01:00:00.Z", "2026-11-22T01:00:00.1234567890Z", "2026-11-22 01:00:00Z",
                "2026-11-22T01:00:00+01:00", "2O26-11-22T01:00:00Z")) {
            assertNull(Json.utc(s), s);
        }
        assertNull(Json.instant(TextNode.valueOf("2026-02-30T00:00:00Z")));
        assertNull(Json.instant(TextNode.valueOf("not a time")));
    }
}
