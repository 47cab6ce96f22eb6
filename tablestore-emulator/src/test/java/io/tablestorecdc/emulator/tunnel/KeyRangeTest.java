package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyRangeTest {

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    private static KeyRange range(String start, String end) {
        return new KeyRange(
                Optional.ofNullable(start).map(KeyRangeTest::key),
                Optional.ofNullable(end).map(KeyRangeTest::key));
    }

    @Test
    void containsIsHalfOpenWithOpenEnds() {
        assertThat(range("b", "d").contains(key("b"))).isTrue();
        assertThat(range("b", "d").contains(key("d"))).isFalse();
        assertThat(range(null, "d").contains(key("a"))).isTrue();
        assertThat(range("b", null).contains(key("zzz"))).isTrue();
        assertThat(range("b", null).contains(key("a"))).isFalse();
    }

    @Test
    void infMinSortsBelowEveryValueAndShorterKeysFirst() {
        PrimaryKey padded =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("b"))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.INF_MIN)
                        .build();
        PrimaryKey full =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("b"))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(Long.MIN_VALUE))
                        .build();
        assertThat(KeyRange.compareKeys(padded, full)).isNegative();
        assertThat(KeyRange.compareKeys(key("b"), full)).isNegative();
    }

    @Test
    void rejectsAnEmptyRange() {
        assertThatThrownBy(() -> range("d", "d")).hasMessageContaining("start must be below end");
    }

    @Test
    void aSplitParentTilesEachChild() {
        assertThat(KeyRange.tiles(List.of(range(null, null)), range(null, "m"))).isTrue();
        assertThat(KeyRange.tiles(List.of(range(null, null)), range("m", null))).isTrue();
        assertThat(KeyRange.tiles(List.of(range("a", "z")), range("b", "c"))).isTrue();
    }

    @Test
    void adjacentParentsTileTheirMergedChildInAnyOrder() {
        assertThat(KeyRange.tiles(List.of(range("m", null), range(null, "m")), range(null, null)))
                .isTrue();
        assertThat(
                        KeyRange.tiles(
                                List.of(range("a", "c"), range("c", "f"), range("f", "k")),
                                range("a", "k")))
                .isTrue();
    }

    @Test
    void aGapOrAnOverlapOrAMissingEndDoesNotTile() {
        assertThat(KeyRange.tiles(List.of(range("a", "b"), range("c", "d")), range("a", "d")))
                .as("gap")
                .isFalse();
        assertThat(KeyRange.tiles(List.of(range("a", "c"), range("b", "d")), range("a", "d")))
                .as("overlap")
                .isFalse();
        assertThat(KeyRange.tiles(List.of(range("a", "c"), range("a", "c")), range("a", "c")))
                .as("duplicate")
                .isFalse();
        assertThat(KeyRange.tiles(List.of(range(null, "m")), range(null, null)))
                .as("open end uncovered")
                .isFalse();
        assertThat(KeyRange.tiles(List.of(range("m", null)), range(null, null)))
                .as("open start uncovered")
                .isFalse();
    }

    @Test
    void aParentOutsideTheChildOrNoParentDoesNotTile() {
        assertThat(KeyRange.tiles(List.of(range("x", "z")), range("a", "c"))).isFalse();
        assertThat(KeyRange.tiles(List.of(), range("a", "c"))).isFalse();
    }
}
