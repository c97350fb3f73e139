package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@link SmallMap} behaves as the {@link LinkedHashMap} Jackson uses, below and beyond its linear size. */
class SmallMapTest {
    @Test
    void randomOperationsMatchALinkedHashMap() {
        Random r = new Random(11);
        for (int round = 0; round < 300; round++) {
            SmallMap small = new SmallMap();
            Map<String, JsonNode> ref = new LinkedHashMap<>();
            int keys = 1 + r.nextInt(SmallMap.LINEAR * 3);
            for (int op = 0; op < 200; op++) {
                String k = "k" + r.nextInt(keys);
                switch (r.nextInt(6)) {
                    case 0, 1, 2 -> {
                        JsonNode v = IntNode.valueOf(r.nextInt(100));
                        assertEquals(ref.put(k, v), small.put(new String(k), v));
                    }
                    case 3 -> assertEquals(ref.remove(k), small.remove(k));
                    case 4 -> {
                        // remove through the iterator, as Jackson's ObjectNode.retain/without may
                        Iterator<Map.Entry<String, JsonNode>> a = ref.entrySet().iterator();
                        Iterator<Map.Entry<String, JsonNode>> b = small.entrySet().iterator();
                        while (a.hasNext()) {
                            Map.Entry<String, JsonNode> x = a.next();
                            Map.Entry<String, JsonNode> y = b.next();
                            assertEquals(x, y);
                            if (x.getKey().equals(k)) {
                                a.remove();
                                b.remove();
                            }
                        }
                        assertEquals(a.hasNext(), b.hasNext());
                    }
                    default -> assertEquals(ref.get(k), small.get(k));
                }
                assertEquals(ref.size(), small.size());
                assertEquals(ref.containsKey(k), small.containsKey(k));
            }
            assertEquals(new ArrayList<>(ref.entrySet()), new ArrayList<>(small.entrySet()));
            assertEquals(ref, small);
            assertEquals(small, ref);
            assertEquals(ref.hashCode(), small.hashCode());
            ObjectNode a = new ObjectNode(JsonNodeFactory.instance, new LinkedHashMap<>(ref));
            ObjectNode b = new ObjectNode(JsonNodeFactory.instance, small);
            assertEquals(a, b);
            assertEquals(a.toString(), b.toString());
        }
    }

    @Test
    void aReplacedFieldKeepsItsPlace() {
        SmallMap m = new SmallMap();
        m.put("a", IntNode.valueOf(1));
        m.put("b", IntNode.valueOf(2));
        m.put("a", IntNode.valueOf(3));
        assertEquals(List.of("a", "b"), new ArrayList<>(m.keySet()));
        assertEquals("{\"a\":3,\"b\":2}", new ObjectNode(JsonNodeFactory.instance, m).toString());
    }
}
