package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parsesEveryValueKind() {
        Object value =
                Json.parse(
                        " {\"s\":\"a\\\"b\\u00e9\\n\",\"i\":-12,\"d\":1.5e2,\"t\":true,\"f\":false,"
                                + "\"n\":null,\"l\":[1,[],{}]} ");

        assertThat(value).isInstanceOf(Map.class);
        Map<?, ?> map = (Map<?, ?>) value;
        assertThat(map.get("s")).isEqualTo("a\"bé\n");
        assertThat(map.get("i")).isEqualTo(-12L);
        assertThat(map.get("d")).isEqualTo(150.0);
        assertThat(map.get("t")).isEqualTo(true);
        assertThat(map.get("f")).isEqualTo(false);
        assertThat(map.containsKey("n")).isTrue();
        assertThat(map.get("n")).isNull();
        assertThat(map.get("l")).isEqualTo(List.of(1L, List.of(), Map.of()));
    }

    @Test
    void writesWhatItParses() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", "tab\t\"q\"\u0001");
        map.put("count", 3L);
        map.put("ratio", 0.25);
        map.put("ok", true);
        map.put("none", null);
        map.put("list", Arrays.asList(1, "x", null));

        String json = Json.write(map);

        assertThat(json)
                .isEqualTo(
                        "{\"name\":\"tab\\t\\\"q\\\"\\u0001\",\"count\":3,"
                                + "\"ratio\":0.25,\"ok\":true,\"none\":null,\"list\":[1,\"x\",null]}");
        assertThat(Json.parse(json)).isEqualTo(Json.parse(Json.write(Json.parse(json))));
        assertThat(((Map<?, ?>) Json.parse(json)).get("name")).isEqualTo("tab\t\"q\"\u0001");
    }

    @Test
    void rejectsMalformedInputWithTheOffset() {
        assertThatThrownBy(() -> Json.parse("{\"a\":1,}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1 column 9")
                .hasMessageContaining("send a single JSON value");
        assertThatThrownBy(() -> Json.parse("[1] 2")).hasMessageContaining("trailing");
        assertThatThrownBy(() -> Json.parse("\"open")).hasMessageContaining("Unterminated");
        assertThatThrownBy(() -> Json.parse("{a:1}"))
                .as("strict: names are quoted")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Json.parseObject("[]")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> Json.write(new Object())).hasMessageContaining("Cannot write");
    }
}
