// Which editor group is the widest: a wide page (a table) opens there rather than in a narrow group beside
// another one (Give Feedback leaves the run view in a narrow group on the right).
import * as vscode from 'vscode';

/** What `vscode.getEditorLayout` answers: the grid, its groups in the order of their view columns. */
export interface EditorLayout {
  /** 0: the top groups side by side; 1: stacked. Each level below turns the other way. */
  orientation: 0 | 1;
  groups: GroupLayout[];
}

export interface GroupLayout {
  /** Across the parent's direction (pixels, or a share); absent: shared equally. */
  size?: number;
  groups?: GroupLayout[];
}

/**
 * The view column (1-based) of the widest group, `active` when it is as wide as any (within 2 %), or
 * undefined when the layout cannot be read.
 */
export function widestGroup(layout: unknown, active?: number): number | undefined {
  if (!isLayout(layout)) {
    return undefined;
  }
  const widths: number[] = [];
  const walk = (groups: GroupLayout[], sideBySide: boolean, width: number) => {
    for (const group of groups) {
      const own = sideBySide ? (group.size ?? 1) : width;
      if (group.groups?.length) {
        walk(group.groups, !sideBySide, own);
      } else {
        widths.push(own);
      }
    }
  };
  walk(layout.groups, layout.orientation === 0, Number.MAX_SAFE_INTEGER);
  if (widths.length === 0) {
    return undefined;
  }
  const widest = Math.max(...widths);
  if (active !== undefined && widths[active - 1] !== undefined && widths[active - 1] >= widest * 0.98) {
    return active;
  }
  return widths.indexOf(widest) + 1;
}

function isLayout(value: unknown): value is EditorLayout {
  const layout = value as Partial<EditorLayout> | undefined;
  return typeof layout === 'object' && layout !== null && (layout.orientation === 0 || layout.orientation === 1) && Array.isArray(layout.groups) && layout.groups.every(isGroup);
}

function isGroup(value: unknown): value is GroupLayout {
  const group = value as Partial<GroupLayout> | undefined;
  return typeof group === 'object' && group !== null && (group.size === undefined || typeof group.size === 'number') && (group.groups === undefined || (Array.isArray(group.groups) && group.groups.every(isGroup)));
}

/** The widest editor group's column, the active one when it is as wide; the active one when the layout is unknown. */
export async function widestColumn(): Promise<vscode.ViewColumn> {
  const active = vscode.window.tabGroups.activeTabGroup.viewColumn;
  const layout = await Promise.resolve(vscode.commands.executeCommand<unknown>('vscode.getEditorLayout')).catch(() => undefined);
  return widestGroup(layout, active) ?? vscode.ViewColumn.Active;
}
