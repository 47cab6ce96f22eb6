package io.tablestorecdc.e2e.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collection;
import java.util.Map;

/**
 * Renders the benchmark's results (maps, lists, numbers, strings) as indented JSON through Gson, so
 * each part hands back plain values instead of formatting text. Doubles are written with three
 * decimals; a value that is not a finite number is {@code null}.
 */
final class JsonText {

    private static final Gson GSON =
            new GsonBuilder().serializeNulls().disableHtmlEscaping().setPrettyPrinting().create();

    private JsonText() {}

    static String render(Object value) {
        return GSON.toJson(toTree(value)) + "\n";
    }

    private static JsonElement toTree(Object value) {
        if (value instanceof Map<?, ?> map) {
            JsonObject object = new JsonObject();
            map.forEach((k, v) -> object.add(k.toString(), toTree(v)));
            return object;
        }
        if (value instanceof Collection<?> list) {
            JsonArray array = new JsonArray();
            list.forEach(v -> array.add(toTree(v)));
            return array;
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d)
                    ? new JsonPrimitive(BigDecimal.valueOf(d).setScale(3, RoundingMode.HALF_UP))
                    : JsonNull.INSTANCE;
        }
        if (value instanceof Number n) {
            return new JsonPrimitive(n);
        }
        if (value instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        return value == null ? JsonNull.INSTANCE : new JsonPrimitive(value.toString());
    }
}
