package org.agentworkspace.core.history;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The fields of a parsed JSON object ({@link JsonLine}'s {@code ObjectNode}s): insertion-ordered like the
 * {@link LinkedHashMap} Jackson uses, so a tree prints its keys in document order, but two arrays instead of a hash
 * table and an entry object per field. A history line's objects have a handful of fields each, and finding one
 * among them by comparing names is cheaper than hashing them. An object with more than {@link #LINEAR} fields moves
 * into a {@link LinkedHashMap}, so a line with one huge object is not quadratic. Part of {@link JsonLine}'s
 * measured saving (kept for the same benchmark: see there).
 */
final class SmallMap extends AbstractMap<String, JsonNode> {
    static final int LINEAR = 16;

    private String[] keys = new String[4];
    private JsonNode[] values = new JsonNode[4];
    private int size;
    private int modCount;
    private LinkedHashMap<String, JsonNode> big;

    private int indexOf(Object key) {
        String[] k = keys;
        for (int i = 0; i < size; i++) {
            if (k[i] == key || k[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int size() {
        return big != null ? big.size() : size;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public JsonNode get(Object key) {
        if (big != null) {
            return big.get(key);
        }
        int i = indexOf(key);
        return i < 0 ? null : values[i];
    }

    @Override
    public boolean containsKey(Object key) {
        return big != null ? big.containsKey(key) : indexOf(key) >= 0;
    }

    @Override
    public JsonNode put(String key, JsonNode value) {
        if (big != null) {
            return big.put(key, value);
        }
        if (key == null) {
            throw new NullPointerException("null key");
        }
        int i = indexOf(key);
        if (i >= 0) {
            JsonNode old = values[i];
            values[i] = value;
            return old;
        }
        if (size == LINEAR) {
            big = new LinkedHashMap<>(LINEAR * 4);
            for (int k = 0; k < size; k++) {
                big.put(keys[k], values[k]);
            }
            keys = null;
            values = null;
            size = 0;
            modCount++;
            return big.put(key, value);
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        keys[size] = key;
        values[size] = value;
        size++;
        modCount++;
        return null;
    }

    @Override
    public JsonNode remove(Object key) {
        if (big != null) {
            return big.remove(key);
        }
        int i = indexOf(key);
        if (i < 0) {
            return null;
        }
        JsonNode old = values[i];
        removeAt(i);
        return old;
    }

    private void removeAt(int i) {
        System.arraycopy(keys, i + 1, keys, i, size - i - 1);
        System.arraycopy(values, i + 1, values, i, size - i - 1);
        size--;
        keys[size] = null;
        values[size] = null;
        modCount++;
    }

    @Override
    public void clear() {
        if (big != null) {
            big.clear();
            return;
        }
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
        modCount++;
    }

    @Override
    public Set<Map.Entry<String, JsonNode>> entrySet() {
        if (big != null) {
            return big.entrySet();
        }
        return new AbstractSet<>() {
            @Override
            public int size() {
                return SmallMap.this.size();
            }

            @Override
            public Iterator<Map.Entry<String, JsonNode>> iterator() {
                if (big != null) {
                    return big.entrySet().iterator();
                }
                return new Iterator<>() {
                    private int next;
                    private int last = -1;
                    private int expected = modCount;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<String, JsonNode> next() {
                        if (expected != modCount) {
                            throw new ConcurrentModificationException();
                        }
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        last = next++;
                        return new Entry(last);
                    }

                    @Override
                    public void remove() {
                        if (last < 0) {
                            throw new IllegalStateException();
                        }
                        if (expected != modCount) {
                            throw new ConcurrentModificationException();
                        }
                        removeAt(last);
                        next = last;
                        last = -1;
                        expected = modCount;
                    }
                };
            }
        };
    }

    /** A field as a map entry; {@code setValue} writes through. */
    private final class Entry implements Map.Entry<String, JsonNode> {
        private final int index;

        Entry(int index) {
            this.index = index;
        }

        @Override
        public String getKey() {
            return keys[index];
        }

        @Override
        public JsonNode getValue() {
            return values[index];
        }

        @Override
        public JsonNode setValue(JsonNode value) {
            JsonNode old = values[index];
            values[index] = value;
            return old;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && getKey().equals(e.getKey())
                    && java.util.Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return getKey().hashCode() ^ java.util.Objects.hashCode(getValue());
        }

        @Override
        public String toString() {
            return getKey() + "=" + getValue();
        }
    }
}
