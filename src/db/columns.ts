/** The columns of a write whose value differs from the stored row's: what an update must set. */
export function changedColumns<T extends object>(
  columns: T,
  stored: Partial<Record<keyof T, unknown>>,
): Partial<T> {
  const changes: Partial<T> = {}
  for (const key in columns) if (stored[key] !== columns[key]) changes[key] = columns[key]
  return changes
}
