package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTextTest {

    @Test
    void rendersNestedValuesInOrderWithEscapedStrings() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("ratio", 0.5);
        inner.put("runs", List.of(1L, 2L));
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("name", "a \"b\"");
        root.put("spark", inner);
        root.put("missing", Double.NaN);

        assertThat(JsonText.render(root))
                .isEqualTo(
                        "{\n"
                                + "  \"name\": \"a \\\"b\\\"\",\n"
                                + "  \"spark\": {\n"
                                + "    \"ratio\": 0.500,\n"
                                + "    \"runs\": [\n"
                                + "      1,\n"
                                + "      2\n"
                                + "    ]\n"
                                + "  },\n"
                                + "  \"missing\": null\n"
                                + "}\n");
    }

    @Test
    void controlCharactersInStringsAreEscaped() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("plan", "Sink\n+- Scan\t\\x\u0001");

        assertThat(JsonText.render(root))
                .isEqualTo("{\n  \"plan\": \"Sink\\n+- Scan\\t\\\\x\\u0001\"\n}\n");
    }

    @Test
    void recordsBecomeObjectsWithTheirComponentNames() {
        Map<String, Object> json =
                ThroughputBenchmark.record(new Measurement("raw", 10, 2_000_000_000L, 1));

        assertThat(json).containsEntry("consumer", "raw").containsEntry("records", 10L);
        assertThat(json.keySet()).containsExactly("consumer", "records", "nanos", "steadyNanos");
    }
}
