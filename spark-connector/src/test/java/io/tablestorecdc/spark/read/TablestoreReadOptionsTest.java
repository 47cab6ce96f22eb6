package io.tablestorecdc.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TablestoreReadOptionsTest {

    private static final String SECRET = "top-secret-value";

    private static Map<String, String> base() {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", "https://inst.cn-hangzhou.ots.aliyuncs.com");
        options.put("instance.name", "inst");
        options.put("access.key.id", "id");
        options.put("Access.Key.Secret", SECRET);
        options.put("table.name", "orders");
        return options;
    }

    @Test
    void theSplitSizeDefaultsTo100MbAndTakesUnits() {
        assertThat(TablestoreReadOptions.parse(base()).splitSize()).isEqualTo(100L << 20);
        Map<String, String> options = base();
        options.put("READ.SPLIT.SIZE", "64m");
        assertThat(TablestoreReadOptions.parse(options).splitSize()).isEqualTo(64L << 20);
        options.put("read.split.size", "5000");
        options.remove("READ.SPLIT.SIZE");
        assertThat(TablestoreReadOptions.parse(options).splitSize()).isEqualTo(5000);
    }

    @Test
    void aBadSplitSizeAndAMissingOptionAreNamedTogether() {
        Map<String, String> options = base();
        options.put("read.split.size", "0");
        options.remove("table.name");

        assertThatThrownBy(() -> TablestoreReadOptions.parse(options))
                .hasMessageContaining("Option 'read.split.size' has invalid value '0'")
                .hasMessageContaining("Missing required option 'table.name'")
                .hasMessageContaining("docs/tablestore-table.md");
    }

    @Test
    void sampleRowsDefaultToNoneAndAreBounded() {
        assertThat(TablestoreReadOptions.parse(base()).sampleRows()).isZero();
        Map<String, String> options = base();
        options.put("read.schema.sample.rows", "1000");
        assertThat(TablestoreReadOptions.parse(options).sampleRows()).isEqualTo(1000);
        options.put("read.schema.sample.rows", "-1");
        assertThatThrownBy(() -> TablestoreReadOptions.parse(options))
                .hasMessageContaining(
                        "Option 'read.schema.sample.rows' has invalid value '-1': use a whole"
                                + " number from 0 to 1000000");
    }

    @Test
    void secretsNeverShow() {
        assertThat(TablestoreReadOptions.parse(base()).toString())
                .doesNotContain(SECRET)
                .contains("table.name=orders")
                .contains("read.split.size=104857600");
    }

    @Test
    void sizesForPlans() {
        assertThat(TablestoreReadOptions.describeSize(100L << 20)).isEqualTo("100 MB");
        assertThat(TablestoreReadOptions.describeSize(4096)).isEqualTo("4 KB");
        assertThat(TablestoreReadOptions.describeSize(1000)).isEqualTo("1000 bytes");
    }
}
