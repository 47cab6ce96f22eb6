package io.tablestorecdc.emulator.server;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON of the admin surface, through Gson: objects become {@code Map<String, Object>} (insertion
 * ordered), arrays {@code List<Object>}, numbers {@code Long} when integral and {@code Double}
 * otherwise, plus {@code String}, {@code Boolean} and {@code null}. Parsing is strict (one value,
 * standard JSON only); writing is compact.
 */
public final class Json {

    private static final Gson GSON =
            new GsonBuilder().serializeNulls().disableHtmlEscaping().create();
    private static final TypeAdapter<JsonElement> ELEMENTS = GSON.getAdapter(JsonElement.class);

    private Json() {}

    /** Parses one JSON value; trailing non-whitespace is an error. */
    public static Object parse(String text) {
        JsonReader reader = new JsonReader(new StringReader(text));
        reader.setLenient(false);
        JsonElement value;
        try {
            value = ELEMENTS.read(reader);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "Invalid JSON: "
                            + e.getMessage().replace(LENIENT_HINT, "malformed JSON")
                            + "; send a single JSON value",
                    e);
        }
        if (!atEnd(reader)) {
            throw invalid("unexpected trailing text after the value");
        }
        return fromTree(value);
    }

    /** Gson's advice for input it refuses, which is not ours to give. */
    private static final String LENIENT_HINT =
            "Use JsonReader.setLenient(true) to accept malformed JSON";

    private static boolean atEnd(JsonReader reader) {
        try {
            return reader.peek() == JsonToken.END_DOCUMENT;
        } catch (IOException e) {
            return false; // something that is not a value follows
        }
    }

    /** Parses a JSON object, failing when the text holds any other value. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("Expected a JSON object but got: " + text);
        }
        return (Map<String, Object>) value;
    }

    /** Writes a value built from the types {@link #parse} produces (any Number is accepted). */
    public static String write(Object value) {
        return GSON.toJson(toTree(value));
    }

    private static IllegalArgumentException invalid(String problem) {
        return new IllegalArgumentException(
                "Invalid JSON: " + problem + "; send a single JSON value");
    }

    private static Object fromTree(JsonElement element) {
        if (element.isJsonNull()) {
            return null;
        }
        if (element.isJsonObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            element.getAsJsonObject()
                    .entrySet()
                    .forEach(e -> map.put(e.getKey(), fromTree(e.getValue())));
            return map;
        }
        if (element.isJsonArray()) {
            List<Object> list = new ArrayList<>();
            element.getAsJsonArray().forEach(e -> list.add(fromTree(e)));
            return list;
        }
        JsonPrimitive primitive = element.getAsJsonPrimitive();
        if (primitive.isBoolean()) {
            return primitive.getAsBoolean();
        }
        if (primitive.isString()) {
            return primitive.getAsString();
        }
        String number = primitive.getAsString();
        if (number.contains(".") || number.contains("e") || number.contains("E")) {
            return Double.parseDouble(number);
        }
        try {
            return Long.parseLong(number);
        } catch (NumberFormatException e) {
            throw invalid("bad number " + number);
        }
    }

    private static JsonElement toTree(Object value) {
        if (value == null) {
            return JsonNull.INSTANCE;
        }
        if (value instanceof String s) {
            return new JsonPrimitive(s);
        }
        if (value instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        if (value instanceof Number n) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no representation for " + d);
            }
            return new JsonPrimitive(n);
        }
        if (value instanceof Map<?, ?> map) {
            JsonObject object = new JsonObject();
            map.forEach((k, v) -> object.add(String.valueOf(k), toTree(v)));
            return object;
        }
        if (value instanceof Iterable<?> list) {
            JsonArray array = new JsonArray();
            list.forEach(v -> array.add(toTree(v)));
            return array;
        }
        throw new IllegalArgumentException(
                "Cannot write " + value.getClass().getName() + " as JSON");
    }
}
