package io.tablestorecdc.checkpoint.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Input rows, plain or from the source, turned into changes. */
class CdcChangeTest {

    private static final RowKey K = RowKey.of("id", CellValue.ofInteger(1));
    private static final SequenceInfo SEQ = new SequenceInfo(1, 10, 2);

    private static Map<String, CellValue> values() {
        Map<String, CellValue> values = new HashMap<>();
        values.put("a", CellValue.ofString("x"));
        values.put("b", null);
        return values;
    }

    @Test
    void aPlainRowInPutModeIsThePutOfItsNonNullColumns() {
        RowWrite w = CdcChange.fromRow(WriteMode.PUT, K, values());
        assertThat(w.kind()).isEqualTo(RowWrite.Kind.PUT);
        assertThat(w.puts()).containsOnlyKeys("a");
    }

    @Test
    void aPlainRowInUpdateModeDeletesItsNullColumns() {
        RowWrite w = CdcChange.fromRow(WriteMode.UPDATE, K, values());
        assertThat(w.kind()).isEqualTo(RowWrite.Kind.UPDATE);
        assertThat(w.puts()).containsOnlyKeys("a");
        assertThat(w.deletes()).containsExactly("b");
    }

    @Test
    void anUpdateOfTheSourceSetsPutColumnsDeletesDeletedOnesAndLeavesTheRest() {
        Map<String, CellValue> values = values();
        values.put("c", null);
        RowWrite w =
                CdcChange.fromChange(
                        "UPDATE", Map.of("a", "PUT", "b", "DELETE_ALL_VERSION"), K, values, SEQ);
        assertThat(w.kind()).isEqualTo(RowWrite.Kind.UPDATE);
        assertThat(w.puts()).containsOnlyKeys("a");
        assertThat(w.deletes()).containsExactly("b");
        assertThat(w.sequence()).isEqualTo(SEQ);
    }

    @Test
    void anUpdateWithoutColumnOpsSetsItsNonNullColumnsOnly() {
        RowWrite w = CdcChange.fromChange("update", null, K, values(), SEQ);
        assertThat(w.puts()).containsOnlyKeys("a");
        assertThat(w.deletes()).isEmpty();
    }

    @Test
    void putsAndDeletesOfTheSourceAreAppliedAsWhatTheyWere() {
        assertThat(CdcChange.fromChange("PUT", Map.of("a", "PUT"), K, values(), SEQ).kind())
                .isEqualTo(RowWrite.Kind.PUT);
        assertThat(CdcChange.fromChange("DELETE", Map.of(), K, values(), SEQ))
                .isEqualTo(RowWrite.delete(K, SEQ));
    }

    @Test
    void anUnknownOpOrColumnOperationIsNamed() {
        assertThatThrownBy(() -> CdcChange.fromChange("UPSERT", null, K, values(), SEQ))
                .hasMessageContaining("column _op is 'UPSERT'; expected PUT, UPDATE or DELETE");
        assertThatThrownBy(
                        () ->
                                CdcChange.fromChange(
                                        "UPDATE", Map.of("a", "INCREMENT"), K, values(), SEQ))
                .hasMessageContaining("gives column a the operation 'INCREMENT'");
    }

    @Test
    void aChangeRecordIsAppliedAsWhatItWas() {
        ChangeRecord record =
                new ChangeRecord(
                        ChangeRecord.Action.UPDATE,
                        K.columns(),
                        List.of(
                                new ChangeRecord.ColumnChange(
                                        "a",
                                        ChangeRecord.ColumnOperation.PUT,
                                        CellValue.ofInteger(1),
                                        0),
                                new ChangeRecord.ColumnChange(
                                        "b",
                                        ChangeRecord.ColumnOperation.DELETE_ONE_VERSION,
                                        null,
                                        5)),
                        SEQ,
                        "ch");
        RowWrite w = CdcChange.fromRecord(record);
        assertThat(w.puts()).containsOnlyKeys("a");
        assertThat(w.deletes()).containsExactly("b");
        assertThat(w.sequence()).isEqualTo(SEQ);
    }

    @Test
    void writeModesAreReadFromTheirOptionValues() {
        assertThat(WriteMode.fromCode("Update")).isEqualTo(WriteMode.UPDATE);
        assertThatThrownBy(() -> WriteMode.fromCode("merge"))
                .hasMessage("Unknown write mode 'merge': use put or update");
    }
}
