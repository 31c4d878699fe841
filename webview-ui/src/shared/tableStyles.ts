import { css } from 'lit';

/** The accessible "Show as table" alternative that every chart offers. */
export const chartTableStyles = css`
  table {
    border-collapse: collapse;
    margin-top: 4px;
  }
  th,
  td {
    text-align: right;
    padding: 2px 10px;
    border-bottom: 1px solid var(--vscode-panel-border);
    font-variant-numeric: tabular-nums;
  }
  th:first-child,
  td:first-child {
    text-align: left;
    overflow-wrap: anywhere;
  }
  summary {
    cursor: pointer;
    color: var(--vscode-textLink-foreground);
  }
`;
