package io.tablestorecdc.e2e.bench;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders the benchmark's results (maps, lists, numbers, strings) as indented JSON, so each part
 * hands back plain values instead of formatting text.
 */
final class JsonText {

    private JsonText() {}

    static String render(Object value) {
        return render(value, "") + "\n";
    }

    private static String render(Object value, String indent) {
        if (value instanceof Map<?, ?> map) {
            String inner = indent + "  ";
            return map.entrySet().stream()
                    .map(
                            e ->
                                    inner
                                            + quote(e.getKey().toString())
                                            + ": "
                                            + render(e.getValue(), inner))
                    .collect(Collectors.joining(",\n", "{\n", "\n" + indent + "}"));
        }
        if (value instanceof Collection<?> list) {
            boolean flat =
                    list.stream().noneMatch(v -> v instanceof Map || v instanceof Collection);
            String inner = indent + "  ";
            return flat
                    ? list.stream()
                            .map(v -> render(v, inner))
                            .collect(Collectors.joining(", ", "[", "]"))
                    : list.stream()
                            .map(v -> inner + render(v, inner))
                            .collect(Collectors.joining(",\n", "[\n", "\n" + indent + "]"));
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return value == null ? "null" : quote(value.toString());
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
