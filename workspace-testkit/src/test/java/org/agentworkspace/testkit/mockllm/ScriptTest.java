package org.agentworkspace.testkit.mockllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScriptTest {

    @Test
    void parsesKindArgAndQuotedParams() {
        Script s = Script.parse("please [[mock:tool:write_file path=a/b.txt content=\"x \\\"y\\\" z\"]] and [[mock:slow:250]] now");
        assertEquals(2, s.markers().size());
        Script.Marker tool = s.find("tool").orElseThrow();
        assertEquals("write_file", tool.arg());
        assertEquals("a/b.txt", tool.param("path").orElseThrow());
        assertEquals("x \"y\" z", tool.param("content").orElseThrow());
        assertEquals("250", s.find("slow").orElseThrow().arg());
        assertEquals("please and now", s.plainText());
    }

    @Test
    void malformedMarkersStayText() {
        Script s = Script.parse("[[mock:]] [[nomock:x]] [[mock:error:429");
        assertTrue(s.markers().isEmpty());
        assertEquals("[[mock:]] [[nomock:x]] [[mock:error:429", s.plainText());
    }

    @Test
    void echoIsDeterministicAndStripsQuotes() {
        assertEquals("MOCK-REPLY: Say hello", Planner.echo("\"Say hello\""));
        assertEquals("MOCK-REPLY:", Planner.echo(""));
    }
}
