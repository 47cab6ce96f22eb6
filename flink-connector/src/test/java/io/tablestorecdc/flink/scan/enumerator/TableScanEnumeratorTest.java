package io.tablestorecdc.flink.scan.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.testing.FakeTableService;
import io.tablestorecdc.flink.scan.TableServiceFactory;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scan's enumerator, Given/When/Then on Flink's mock context over the core's fake table. */
class TableScanEnumeratorTest {

    private static final long SPLIT_BYTES = 4096;

    private FakeTableService table;
    private MockSplitEnumeratorContext<TableScanSplit> context;
    private int opened;

    @BeforeEach
    void setUp() {
        table = new FakeTableService(10);
        table.splitAt("b", "c", "d"); // four splits: .. b, b .. c, c .. d, d ..
        context = new MockSplitEnumeratorContext<>(2);
        context.registerReader(new ReaderInfo(0, "host-0"));
        context.registerReader(new ReaderInfo(1, "host-1"));
    }

    private TableScanEnumerator enumerator(
            KeyBounds bounds, Optional<TableScanEnumeratorState> state) {
        TableServiceFactory services =
                () -> {
                    opened++;
                    return table;
                };
        return new TableScanEnumerator(context, services, SPLIT_BYTES, bounds, state);
    }

    private List<TableScanSplit> assignedTo(int subtask) {
        List<TableScanSplit> out = new ArrayList<>();
        for (SplitsAssignment<TableScanSplit> a : context.getSplitsAssignmentSequence()) {
            out.addAll(a.assignment().getOrDefault(subtask, List.of()));
        }
        return out;
    }

    @Test
    void plansOnceAndHandsOneSplitPerRequestThenNoMore() throws Throwable {
        TableScanEnumerator enumerator = enumerator(KeyBounds.all(), Optional.empty());
        enumerator.start();
        enumerator.handleSplitRequest(0, "host-0"); // asks before the plan is done: waits

        assertThat(context.getSplitsAssignmentSequence()).isEmpty();
        context.runNextOneTimeCallable();

        assertThat(table.splitRequests).containsExactly(SPLIT_BYTES);
        assertThat(assignedTo(0)).extracting(TableScanSplit::splitId).containsExactly("range-0");
        enumerator.handleSplitRequest(1, "host-1");
        enumerator.handleSplitRequest(1, "host-1");
        enumerator.handleSplitRequest(0, "host-0");
        enumerator.handleSplitRequest(0, "host-0");

        assertThat(assignedTo(1))
                .extracting(TableScanSplit::splitId)
                .containsExactly("range-1", "range-2");
        assertThat(assignedTo(0))
                .extracting(TableScanSplit::splitId)
                .containsExactly("range-0", "range-3");
        assertThat(context.hasNoMoreSplits(0)).isTrue();
        assertThat(context.hasNoMoreSplits(1)).isFalse();
        assertThat(enumerator.snapshotState(1))
                .isEqualTo(new TableScanEnumeratorState(true, List.of()));
    }

    @Test
    void keyBoundsDropTheSplitsOutsideThem() throws Throwable {
        KeyBounds onlyC =
                new KeyBounds(
                        List.of(PrimaryKeyValue.fromString("c")),
                        Optional.empty(),
                        Optional.empty());
        TableScanEnumerator enumerator = enumerator(onlyC, Optional.empty());
        enumerator.start();
        context.runNextOneTimeCallable();
        enumerator.handleSplitRequest(0, "host-0");
        enumerator.handleSplitRequest(0, "host-0");

        assertThat(assignedTo(0)).hasSize(1);
        assertThat(assignedTo(0).get(0).range().inclusiveStart().getPrimaryKeyColumn(0).getValue())
                .isEqualTo(PrimaryKeyValue.fromString("c"));
        assertThat(context.hasNoMoreSplits(0)).isTrue();
    }

    @Test
    void splitsOfAFailedReaderGoToTheNextThatAsksAndAreCheckpointed() throws Throwable {
        TableScanEnumerator enumerator = enumerator(KeyBounds.all(), Optional.empty());
        enumerator.start();
        context.runNextOneTimeCallable();
        enumerator.handleSplitRequest(0, "host-0");
        TableScanSplit lost = assignedTo(0).get(0);

        enumerator.addSplitsBack(List.of(lost), 0);
        TableScanEnumeratorState state = enumerator.snapshotState(7);
        enumerator.handleSplitRequest(1, "host-1");

        assertThat(state.unassigned()).first().isEqualTo(lost);
        assertThat(state.unassigned()).hasSize(4);
        assertThat(assignedTo(1)).containsExactly(lost);
    }

    @Test
    void aRestoredEnumeratorDoesNotPlanAgain() throws Throwable {
        TableScanEnumerator first = enumerator(KeyBounds.all(), Optional.empty());
        first.start();
        context.runNextOneTimeCallable();
        first.handleSplitRequest(0, "host-0");
        TableScanEnumeratorState state = first.snapshotState(3);
        int openedBefore = opened;

        context = new MockSplitEnumeratorContext<>(2);
        context.registerReader(new ReaderInfo(1, "host-1"));
        TableScanEnumerator restored = enumerator(KeyBounds.all(), Optional.of(state));
        restored.start();
        for (int i = 0; i < 4; i++) {
            restored.handleSplitRequest(1, "host-1");
        }

        assertThat(context.getOneTimeCallables()).isEmpty();
        assertThat(opened).isEqualTo(openedBefore);
        assertThat(assignedTo(1))
                .extracting(TableScanSplit::splitId)
                .containsExactly("range-1", "range-2", "range-3");
        assertThat(context.hasNoMoreSplits(1)).isTrue();
    }

    @Test
    void aFailedPlanFailsTheEnumeratorNamingTheFix() {
        TableServiceFactory broken =
                () -> {
                    throw new IllegalStateException("OTSObjectNotExist: table gone");
                };
        TableScanEnumerator enumerator =
                new TableScanEnumerator(
                        context, broken, SPLIT_BYTES, KeyBounds.all(), Optional.empty());
        enumerator.start();

        assertThatThrownBy(context::runNextOneTimeCallable)
                .hasMessageContaining("Could not plan the splits of the table scan")
                .hasMessageContaining("OTSObjectNotExist: table gone")
                .hasMessageContaining("Check that the table exists");
    }
}
