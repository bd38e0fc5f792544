export type PetStatus = 'available' | 'pending' | 'sold';

export interface NewPet {
  name: string;
  categoryId: number;
  status?: PetStatus;
}

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export interface Limits {
  perMinute: number;
  perDay: number;
}
